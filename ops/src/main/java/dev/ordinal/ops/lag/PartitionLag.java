package dev.ordinal.ops.lag;

import dev.ordinal.messaging.ConfigurationException;
import java.time.Duration;
import java.time.Instant;

/**
 * The lag of one consumer group on one partition at one moment.
 *
 * <p>{@code lag} is {@code logEndOffset - committedOffset}, exactly as {@code kafka-consumer-groups
 * --describe} computes it; it can be negative when the committed offset is past the log end (the
 * topic was recreated or truncated). {@code timeLag} is the age of the record at the committed
 * offset (the next record the group will read), measured against the reader's clock from that
 * record's own timestamp; never interpolated.
 *
 * @param topic the topic
 * @param partition the partition, 0 or more
 * @param committedOffset the group's committed offset; null when it has committed nothing here
 * @param logEndOffset the offset the next produced record will get (high watermark); null when the
 *     partition has no leader or the topic is gone
 * @param lag records between the committed offset and the log end; null when either is unknown
 * @param nextRecordTimestamp the timestamp of the next record the group will read (CreateTime or
 *     LogAppendTime, whichever the topic keeps); null when lag is not positive or no record could
 *     be read in time
 * @param timeLag {@code now - nextRecordTimestamp}; {@link Duration#ZERO} when lag is 0, null when
 *     unknown (no committed offset, negative lag, or the record could not be read)
 * @param memberId the consumer the partition is assigned to; null when unassigned
 * @param clientId that consumer's client id; null when unassigned
 * @param host that consumer's host; null when unassigned
 */
public record PartitionLag(
    String topic,
    int partition,
    Long committedOffset,
    Long logEndOffset,
    Long lag,
    Instant nextRecordTimestamp,
    Duration timeLag,
    String memberId,
    String clientId,
    String host) {

  public PartitionLag {
    if (topic == null || topic.isEmpty()) {
      throw new ConfigurationException("topic must be a topic name, not empty");
    }
    if (partition < 0) {
      throw new ConfigurationException("partition must be 0 or more: " + partition);
    }
    if (committedOffset != null && committedOffset < 0) {
      throw new ConfigurationException("committedOffset must be 0 or more: " + committedOffset);
    }
    if (logEndOffset != null && logEndOffset < 0) {
      throw new ConfigurationException("logEndOffset must be 0 or more: " + logEndOffset);
    }
    Long expected =
        committedOffset == null || logEndOffset == null ? null : logEndOffset - committedOffset;
    if (lag == null ? expected != null : !lag.equals(expected)) {
      throw new ConfigurationException(
          "lag must be logEndOffset - committedOffset ("
              + expected
              + ") for "
              + topic
              + "-"
              + partition
              + ", not "
              + lag);
    }
  }

  /** Offsets only, no time lag read yet and no member. */
  public static PartitionLag of(String topic, int partition, Long committed, Long logEnd) {
    Long lag = committed == null || logEnd == null ? null : logEnd - committed;
    Duration timeLag = lag != null && lag == 0 ? Duration.ZERO : null;
    return new PartitionLag(
        topic, partition, committed, logEnd, lag, null, timeLag, null, null, null);
  }

  /** This with the time lag read from the next record's timestamp at {@code now}. */
  public PartitionLag withNextRecord(Instant timestamp, Instant now) {
    Duration age = Duration.between(timestamp, now);
    return with(timestamp, age.isNegative() ? Duration.ZERO : age, memberId, clientId, host);
  }

  /** This assigned to a member. */
  public PartitionLag withMember(String member, String client, String onHost) {
    return with(nextRecordTimestamp, timeLag, member, client, onHost);
  }

  /** These offsets with another next record and member. */
  private PartitionLag with(
      Instant nextTimestamp, Duration nextAge, String member, String client, String onHost) {
    return new PartitionLag(
        topic,
        partition,
        committedOffset,
        logEndOffset,
        lag,
        nextTimestamp,
        nextAge,
        member,
        client,
        onHost);
  }

  /** True when the group has records left to read here. */
  public boolean lagging() {
    return lag != null && lag > 0;
  }
}

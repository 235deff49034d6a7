package dev.ordinal.ops.internal;

import dev.ordinal.messaging.MessagingException;
import dev.ordinal.messaging.Preflight;
import dev.ordinal.messaging.RefusedException;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.errors.GroupAuthorizationException;
import org.apache.kafka.common.errors.InvalidTopicException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;

/**
 * Admin calls of the operator tools: each waits with a bound, and a broker that does not answer or
 * a topic that does not exist becomes one sentence.
 */
public final class KafkaCalls {
  private KafkaCalls() {}

  /**
   * The result of {@code future}; the broker's own error (an unchecked Kafka exception) is thrown
   * as it is, for the caller to name what was not found.
   *
   * @param doing what was asked, for the message: "listing offsets of topic t"
   */
  public static <T> T await(KafkaFuture<T> future, Duration timeout, String doing) {
    try {
      return future.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      if (cause instanceof org.apache.kafka.common.errors.TimeoutException) {
        throw noAnswer(timeout, doing, cause);
      }
      if (cause instanceof RuntimeException r) {
        throw r;
      }
      throw new MessagingException("Kafka failed while " + doing + ": " + cause, cause);
    } catch (TimeoutException e) {
      throw noAnswer(timeout, doing, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new MessagingException("Interrupted while " + doing, e);
    }
  }

  /**
   * As {@link #await}, a refusal for a missing authorization that names no group or no topic naming
   * {@code group} or {@code topic}, the ones asked about (Kafka's admin client leaves them out of
   * some refusals), so that the sentence for it can name them.
   *
   * @param group the group asked about; null when none is
   * @param topic the topic asked about; null when none is
   */
  public static <T> T awaitOn(
      KafkaFuture<T> future, Duration timeout, String doing, String group, String topic) {
    try {
      return await(future, timeout, doing);
    } catch (GroupAuthorizationException e) {
      if (e.groupId() != null || group == null) {
        throw e;
      }
      GroupAuthorizationException named = new GroupAuthorizationException(e.getMessage(), group);
      named.initCause(e);
      throw named;
    } catch (TopicAuthorizationException e) {
      if (!e.unauthorizedTopics().isEmpty() || topic == null) {
        throw e;
      }
      TopicAuthorizationException named =
          new TopicAuthorizationException(e.getMessage(), Set.of(topic));
      named.initCause(e);
      throw named;
    }
  }

  /**
   * The partition numbers of {@code topic}, in order.
   *
   * @throws RefusedException when the topic does not exist
   */
  public static List<Integer> partitionsOf(Admin admin, String topic, Duration timeout) {
    TopicDescription d;
    try {
      d =
          awaitOn(
                  admin.describeTopics(List.of(topic)).allTopicNames(),
                  timeout,
                  "describing " + topic,
                  null,
                  topic)
              .get(topic);
    } catch (UnknownTopicOrPartitionException | InvalidTopicException e) {
      throw new RefusedException("Topic " + topic + " does not exist; check its name.", e);
    }
    return d.partitions().stream().map(TopicPartitionInfo::partition).sorted().toList();
  }

  /** The failure of a call that got no answer within {@code timeout}. */
  public static MessagingException noAnswer(Duration timeout, String doing, Throwable cause) {
    return new MessagingException(
        "Kafka did not answer within "
            + timeout.toSeconds()
            + " s while "
            + doing
            + "; check that the broker runs and "
            + Preflight.KAFKA_SETTING
            + " names it.",
        cause);
  }
}

package dev.ordinal.relay;

import dev.ordinal.messaging.ConfigurationException;
import dev.ordinal.messaging.Preflight;
import dev.ordinal.messaging.db.TlsFailure;
import dev.ordinal.messaging.kafka.HeaderFormat;
import dev.ordinal.messaging.kafka.KafkaClients;
import dev.ordinal.messaging.kafka.KafkaRefusals;
import dev.ordinal.messaging.kafka.Topics;
import dev.ordinal.relay.internal.CapturePoint;
import dev.ordinal.relay.internal.PollingOutbox;
import dev.ordinal.relay.internal.PollingPublisher;
import dev.ordinal.relay.internal.SlotPosition;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.jooq.Condition;
import org.jooq.DSLContext;
import org.jooq.impl.DSL;

/**
 * What an operator does after the relay refused to stream ({@link PositionLostException}): give the
 * relay a slot from now ({@link #resetPosition}), then publish again the outbox rows committed
 * since the position was lost ({@link #republish}), under their original message ids, so consumers
 * skip what they had applied already. Both are plans first: nothing changes until {@code execute}.
 *
 * <p>Rows are published in {@code occurred_at} order, then id, to {@code <prefix>.<aggregate_type>}
 * with the same key, value and headers the relay gives them. Only rows still in the table can be
 * published again: the outbox retention decides how long that is ({@code after-age} keeps them for
 * its age, {@code delete-on-write} not at all).
 */
public final class RelayRecovery {
  private static final org.slf4j.Logger log =
      org.slf4j.LoggerFactory.getLogger(RelayRecovery.class);

  /**
   * One end of a range: a moment, or a message id (its row's {@code written_at}). Rows are chosen
   * by {@code written_at}, when the database wrote them, not by the writer host's {@code
   * occurred_at}, whose clock may lag the database's.
   */
  public record Bound(Instant at, UUID messageId) {
    /**
     * @throws ConfigurationException for text that is neither an ISO-8601 time nor a UUID
     */
    public static Bound parse(String option, String text) {
      if (text == null) {
        return null;
      }
      try {
        return new Bound(null, UUID.fromString(text.trim()));
      } catch (IllegalArgumentException notAnId) {
        // a time, then
      }
      try {
        return new Bound(OffsetDateTime.parse(text.trim()).toInstant(), null);
      } catch (DateTimeParseException e) {
        throw new ConfigurationException(
            option
                + " must be an ISO-8601 time such as 2026-12-01T18:00:00Z or a message id, not "
                + text);
      }
    }
  }

  /**
   * The rows a republish would send.
   *
   * @param rows how many
   * @param byAggregateType how many per aggregate type (topic {@code <prefix>.<type>})
   * @param first the earliest {@code written_at} among the rows, or null when there are none
   * @param last the latest
   */
  public record Plan(long rows, Map<String, Long> byAggregateType, Instant first, Instant last) {}

  /**
   * What {@link #resetPosition} found and did.
   *
   * @param storedPositionDeleted a stored position was there and is gone
   * @param slotDropped an invalidated slot was dropped
   * @param slotCreated a slot was created at the current end of the WAL
   */
  public record Reset(boolean storedPositionDeleted, boolean slotDropped, boolean slotCreated) {}

  static final int PAGE = 1000;
  static final Duration ACK_TIMEOUT = Duration.ofSeconds(60);

  private final RelayConfig config;

  public RelayRecovery(RelayConfig config) {
    this.config = config;
  }

  /** The rows from {@code from} (inclusive) to {@code to} (inclusive, or no end). */
  public Plan plan(Bound from, Bound to) throws SQLException {
    try (Connection c = connect()) {
      DSLContext dsl = DSL.using(c);
      Condition range = range(dsl, from, to);
      Map<String, Long> byType = new TreeMap<>();
      var aggregateType = t().text(OutboxTable.Column.AGGREGATE_TYPE);
      dsl.select(aggregateType, DSL.count())
          .from(table())
          .where(range)
          .groupBy(aggregateType)
          .forEach(r -> byType.put(r.value1(), r.value2().longValue()));
      var bounds =
          dsl.select(DSL.min(t().writtenAt()), DSL.max(t().writtenAt()))
              .from(table())
              .where(range)
              .fetchOne();
      long rows = byType.values().stream().mapToLong(Long::longValue).sum();
      return new Plan(
          rows,
          byType,
          bounds == null || bounds.value1() == null ? null : bounds.value1().toInstant(),
          bounds == null || bounds.value2() == null ? null : bounds.value2().toInstant());
    }
  }

  /**
   * Before a relay's first stream (no position stored, as on its first start or after {@link
   * #resetPosition}), publishes every row the outbox holds: they were committed before its slot was
   * made, so the stream never carries them (rows written while no relay had yet run were lost that
   * way). Those committed after the slot come again from the stream, and consumers skip them as
   * duplicates; a row's first publication is in {@code occurred_at} order, ahead of anything the
   * stream sends. Nothing is published once a position is stored. Rows in {@link
   * RelayConfig#skipEvents()} are passed over, as the stream passes them over. Rows a polling relay
   * marked dispatched ({@code dispatched_at} set) are on Kafka already and are not read: at a
   * cut-over from polling only the poller's backlog is published again.
   *
   * @return how many rows were published
   * @throws IllegalStateException as {@link #republish}
   * @throws RelayException when PostgreSQL failed or the thread was interrupted
   */
  public long publishBeforeFirstStream() {
    return publishBeforeFirstStream(() -> {});
  }

  /**
   * As {@link #publishBeforeFirstStream()}, calling {@code onPage} after each page acknowledged (a
   * supervised loop's sign of progress: a large outbox takes a while).
   */
  public long publishBeforeFirstStream(Runnable onPage) {
    try {
      long n = SlotPosition.hasStored(config) ? 0 : publish(null, null, true, line -> onPage.run());
      if (n > 0) {
        log.info(
            "Relay of {} published the {} outbox row(s) older than its slot", config.slotName(), n);
      }
      return n;
    } catch (SQLException e) {
      throw new RelayException("The relay could not publish the rows older than its slot", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new RelayException("Interrupted while publishing the rows older than the slot", e);
    }
  }

  /**
   * Publishes the rows of {@link #plan} again, in order, and waits for every acknowledgement; rows
   * in {@link RelayConfig#skipEvents()} are passed over (a warning each).
   *
   * @return how many Kafka acknowledged
   * @throws IllegalStateException when Kafka refused or did not acknowledge a row (the rows before
   *     it are published; running it again publishes them again, which consumers skip)
   */
  public long republish(Bound from, Bound to, Consumer<String> progress)
      throws SQLException, InterruptedException {
    return publish(from, to, false, progress);
  }

  /**
   * As {@link #republish}; with {@code undispatchedOnly}, of a table with a {@code dispatched_at}
   * column only the rows without it: a polling relay has published the others.
   */
  private long publish(Bound from, Bound to, boolean undispatchedOnly, Consumer<String> progress)
      throws SQLException, InterruptedException {
    Map<String, Object> props = new HashMap<>();
    props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
    props.put(ProducerConfig.ACKS_CONFIG, "all");
    props.putAll(config.kafka());
    KafkaClients kafka = config.kafkaClients();
    Preflight.checkKafka(kafka, Preflight.DEFAULT_TIMEOUT);
    long sent = 0;
    try (Connection c = connect();
        KafkaProducer<byte[], byte[]> producer =
            kafka.producer(
                "republish-" + config.outboxSchema(),
                props,
                new ByteArraySerializer(),
                new ByteArraySerializer())) {
      DSLContext dsl = DSL.using(c);
      Condition range = range(dsl, from, to);
      if (undispatchedOnly && hasDispatchedAt(dsl)) {
        range = range.and(DSL.field(DSL.name("dispatched_at")).isNull());
      }
      Topics.Known topics =
          new Topics.Known(kafka, config.topicPartitions(), config.topicDurability());
      PollingPublisher mapping =
          new PollingPublisher(producer, config.topicPrefix(), Clock.systemUTC(), d -> {}, topics)
              .headers(config.headerFormat(), HeaderFormat.source(config.outboxSchema()));
      OffsetDateTime afterAt = null;
      UUID afterId = null;
      while (true) {
        Condition page =
            afterAt == null
                ? range
                : range.and(DSL.row(t().occurredAt(), t().id()).gt(afterAt, afterId));
        List<PollingOutbox.Row> rows =
            dsl.select(t().rowFields())
                .from(table())
                .where(page)
                .orderBy(t().occurredAt(), t().id())
                .limit(PAGE)
                .fetch(t()::row);
        if (rows.isEmpty()) {
          return sent;
        }
        List<Future<RecordMetadata>> acks = new ArrayList<>(rows.size());
        for (PollingOutbox.Row row : rows) {
          if (config.skipEvents().contains(row.id())) {
            log.warn(
                "Outbox row {} is not published again: --skip-event {} (the row stays in {})",
                row.id(),
                row.id(),
                t().qualified(config.outboxSchema()));
            acks.add(null);
            continue;
          }
          ProducerRecord<byte[], byte[]> record = mapping.toKafka(row);
          topics.ensure(record.topic());
          acks.add(producer.send(record));
        }
        for (int i = 0; i < acks.size(); i++) {
          if (acks.get(i) == null) {
            continue; // skipped as told
          }
          try {
            acks.get(i).get(ACK_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
          } catch (ExecutionException | TimeoutException e) {
            // a missing ACL is a grant to give, named as the relay names it: not a failed row
            KafkaRefusals.notAuthorized(kafka, e, resource -> "WRITE")
                .ifPresent(
                    refusal -> {
                      throw refusal;
                    });
            throw new IllegalStateException(
                "Kafka did not acknowledge outbox row "
                    + rows.get(i).id()
                    + " after "
                    + (sent + i)
                    + " rows; running republish again sends them again, and consumers skip"
                    + " duplicates: "
                    + (e.getCause() == null ? e : e.getCause()),
                e);
          }
        }
        sent += acks.stream().filter(java.util.Objects::nonNull).count();
        progress.accept(sent + " rows published again");
        PollingOutbox.Row last = rows.get(rows.size() - 1);
        afterAt = last.occurredAt();
        afterId = last.id();
      }
    }
  }

  /**
   * Gives the relay a slot that starts now: deletes the stored position, drops the slot when it was
   * invalidated, and creates it when missing. Run it before {@link #republish}, so an event
   * committed meanwhile is both on the new slot and among the rows published again (a duplicate,
   * never a loss).
   *
   * @param execute false for what it would do, without doing it
   * @throws IllegalStateException when a relay streams from the slot (stop it first)
   */
  public Reset resetPosition(boolean execute) throws SQLException {
    try (Connection c = connect()) {
      DSLContext dsl = DSL.using(c);
      Optional<SlotPosition.Slot> slot = SlotPosition.slot(dsl, config.slotName());
      if (slot.isPresent() && slot.get().active()) {
        throw new IllegalStateException(
            "A relay streams from slot " + config.slotName() + ": stop it first");
      }
      boolean stored = SlotPosition.stored(dsl, config).isPresent();
      boolean drop = slot.isPresent() && "lost".equals(slot.get().walStatus());
      boolean create = slot.isEmpty() || drop;
      if (execute) {
        if (drop) {
          dsl.select(DSL.field("pg_drop_replication_slot({0})", DSL.val(config.slotName())))
              .fetch();
        }
        if (create) {
          CapturePoint.createSlot(dsl, config.slotName());
        }
        if (stored) {
          dsl.deleteFrom(DSL.table(DSL.name(config.outboxSchema(), config.offsetTable())))
              .execute();
        }
      }
      return new Reset(stored, drop, create);
    }
  }

  /**
   * What {@link #markDispatched} found and did.
   *
   * @param rows the undispatched rows written at or before {@code cutOff}: marked dispatched, or
   *     that would be
   * @param cutOff the stored position's last commit less the margin
   * @param lastCommit when the last transaction the CDC relay relayed committed (PostgreSQL's
   *     clock)
   * @param inMargin the undispatched rows written after {@code cutOff} and at or before {@code
   *     lastCommit}: left for the poller; those the CDC relay had published come again as copies
   */
  public record Marking(long rows, Instant cutOff, Instant lastCommit, long inMargin) {}

  /**
   * The way back from the CDC relay to a polling relay: marks dispatched the rows the CDC relay has
   * durably published, so a poller started next publishes only the rest. Those are the rows
   * committed at or before its stored position's last commit; the table has no commit time, so a
   * row counts when it was written ({@link OutboxTable#writtenAt}: PostgreSQL's {@code written_at}
   * on Ordinal's outbox, the writer's {@code occurred_at} on a team's table) at or before that
   * commit less {@code margin}. Nothing is lost while a transaction takes less than the margin from
   * that time to its commit, the writer's clock lag behind PostgreSQL's included. Rows already
   * dispatched are left as they are.
   *
   * @param execute false for what it would mark, without marking
   * @throws IllegalStateException while a relay streams from the slot, or when no position is
   *     stored (the CDC relay never streamed, or its position was reset)
   * @throws ConfigurationException when the table has no {@code dispatched_at} column, the position
   *     is kept in a file, or the margin is negative
   */
  public Marking markDispatched(Duration margin, boolean execute) throws SQLException {
    if (margin.isNegative()) {
      throw new ConfigurationException("--margin must not be negative, not " + margin);
    }
    if (config.offsetStore() != RelayConfig.OffsetStore.POSTGRES) {
      throw new ConfigurationException(
          "Marking reads the relay's position from PostgreSQL, not from its offset file "
              + config.offsetFile()
              + ": give the relay's PostgreSQL offset store");
    }
    try (Connection c = connect()) {
      DSLContext dsl = DSL.using(c);
      if (SlotPosition.slot(dsl, config.slotName()).filter(SlotPosition.Slot::active).isPresent()) {
        throw new IllegalStateException(
            "A relay streams from slot " + config.slotName() + ": stop it first");
      }
      if (!hasDispatchedAt(dsl)) {
        throw new ConfigurationException(
            t().qualified(config.outboxSchema())
                + " has no dispatched_at column: add the polling relay's columns (docs/ADOPTING.md)");
      }
      Instant lastCommit =
          SlotPosition.stored(dsl, config)
              .map(SlotPosition.Stored::lastCommit)
              .orElseThrow(
                  () ->
                      new IllegalStateException(
                          "No position of the CDC relay is stored in "
                              + config.outboxSchema()
                              + "."
                              + config.offsetTable()
                              + " with a commit time, so nothing is known to be published: start the"
                              + " poller without marking (it publishes every undispatched row)"));
      Instant cutOff = lastCommit.minus(margin);
      var dispatchedAt = DSL.field(DSL.name("dispatched_at"), OffsetDateTime.class);
      Condition undispatched = dispatchedAt.isNull();
      Condition marked = undispatched.and(t().writtenAt().le(cutOff.atOffset(ZoneOffset.UTC)));
      long inMargin =
          dsl.fetchCount(
              table(),
              undispatched
                  .and(t().writtenAt().gt(cutOff.atOffset(ZoneOffset.UTC)))
                  .and(t().writtenAt().le(lastCommit.atOffset(ZoneOffset.UTC))));
      long rows =
          execute
              ? dsl.update(table())
                  .set(dispatchedAt, DSL.currentOffsetDateTime())
                  .where(marked)
                  .execute()
              : dsl.fetchCount(table(), marked);
      return new Marking(rows, cutOff, lastCommit, inMargin);
    }
  }

  private boolean hasDispatchedAt(DSLContext dsl) {
    return dsl.fetchExists(
        DSL.selectOne()
            .from(DSL.table(DSL.name("information_schema", "columns")))
            .where(DSL.field(DSL.name("table_schema")).eq(config.outboxSchema()))
            .and(DSL.field(DSL.name("table_name")).eq(t().table()))
            .and(DSL.field(DSL.name("column_name")).eq("dispatched_at")));
  }

  private OutboxTable t() {
    return config.outboxTable();
  }

  /** The outbox table, in the configured schema. */
  private org.jooq.Table<?> table() {
    return t().in(config.outboxSchema());
  }

  private Condition range(DSLContext dsl, Bound from, Bound to) {
    Condition c = DSL.noCondition();
    // by when the database wrote each row: occurred_at is the writer host's clock, which may lag
    if (from != null) {
      c = c.and(t().writtenAt().ge(at(dsl, from, "--from")));
    }
    if (to != null) {
      c = c.and(t().writtenAt().le(at(dsl, to, "--to")));
    }
    return c;
  }

  private OffsetDateTime at(DSLContext dsl, Bound b, String option) {
    if (b.at() != null) {
      return b.at().atOffset(ZoneOffset.UTC);
    }
    OffsetDateTime t =
        dsl.select(t().writtenAt())
            .from(table())
            .where(t().id().eq(b.messageId()))
            .fetchOne(t().writtenAt());
    if (t == null) {
      throw new ConfigurationException(
          option
              + " names message "
              + b.messageId()
              + ", which is not in "
              + t().qualified(config.outboxSchema())
              + " (the retention may have deleted it): give a time instead");
    }
    return t;
  }

  private Connection connect() throws SQLException {
    Properties props = new Properties();
    props.setProperty("user", config.db().user());
    props.setProperty("password", config.db().password());
    props.setProperty("connectTimeout", "10");
    props.setProperty("ApplicationName", "ordinal-relay-recovery");
    try {
      return DriverManager.getConnection(config.db().jdbcUrl(), props);
    } catch (SQLException e) {
      // a certificate that does not verify is the URL's to fix, said as the services say it
      String tls = TlsFailure.describe(config.db(), e);
      if (tls != null) {
        throw new ConfigurationException(tls, e);
      }
      throw e;
    }
  }
}

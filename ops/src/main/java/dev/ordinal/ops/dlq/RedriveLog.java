package dev.ordinal.ops.dlq;

import static dev.ordinal.ops.db.Tables.DLQ_REDRIVE_LOG;

import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import org.jooq.Condition;
import org.jooq.DSLContext;
import org.jooq.InsertSetMoreStep;
import org.jooq.exception.DataAccessException;
import org.jooq.impl.DSL;

/**
 * The {@code dlq_redrive_log} table: one row per dead letter re-driven ({@code action} {@code
 * redrive}, with where it went) or discarded ({@code action} {@code discard}, no target). Reads are
 * empty when the schema has no log yet, or a log from before {@code discard} existed (then nothing
 * was discarded there).
 */
final class RedriveLog {
  static final String REDRIVE = "redrive";
  static final String DISCARD = "discard";

  private static final Set<String> NO_LOG_YET = Set.of("42P01", "42703");

  private final DSLContext dsl;

  RedriveLog(DSLContext dsl) {
    this.dsl = dsl;
  }

  /** How many times each dead letter of {@code dlqTopic} was re-driven; absent means never. */
  Map<DeadLetter.Position, Integer> redriveCounts(String dlqTopic) {
    // re-drives are the rows with a target: every row of a log from before discard existed
    return counts(dlqTopic, DLQ_REDRIVE_LOG.TARGET_TOPIC.isNotNull());
  }

  /** The dead letters of {@code dlqTopic} that were discarded, with how many times. */
  Map<DeadLetter.Position, Integer> discarded(String dlqTopic) {
    return counts(dlqTopic, DLQ_REDRIVE_LOG.ACTION.eq(DISCARD));
  }

  private Map<DeadLetter.Position, Integer> counts(String dlqTopic, Condition action) {
    Map<DeadLetter.Position, Integer> counts = new HashMap<>();
    try {
      dsl.select(DLQ_REDRIVE_LOG.DLQ_PARTITION, DLQ_REDRIVE_LOG.DLQ_OFFSET, DSL.count())
          .from(DLQ_REDRIVE_LOG)
          .where(DLQ_REDRIVE_LOG.DLQ_TOPIC.eq(dlqTopic))
          .and(action)
          .groupBy(DLQ_REDRIVE_LOG.DLQ_PARTITION, DLQ_REDRIVE_LOG.DLQ_OFFSET)
          .fetch()
          .forEach(r -> counts.put(new DeadLetter.Position(r.value1(), r.value2()), r.value3()));
    } catch (DataAccessException e) {
      if (!NO_LOG_YET.contains(e.sqlState())) {
        throw e;
      }
    }
    return counts;
  }

  /** Records the acknowledged re-drives in one transaction. */
  void recordRedrives(
      String dlqTopic, List<RedriveResult.Redriven> redriven, String by, Instant at) {
    insert(
        redriven.size(),
        tx ->
            redriven.forEach(
                r ->
                    row(tx, dlqTopic, r.source(), REDRIVE, by, at)
                        .set(DLQ_REDRIVE_LOG.TARGET_TOPIC, r.topic())
                        .set(DLQ_REDRIVE_LOG.TARGET_PARTITION, r.partition())
                        .set(DLQ_REDRIVE_LOG.TARGET_OFFSET, r.offset())
                        .execute()));
  }

  /** Records the discarded dead letters in one transaction. */
  void recordDiscards(String dlqTopic, List<DeadLetter> discarded, String by, Instant at) {
    insert(
        discarded.size(),
        tx -> discarded.forEach(d -> row(tx, dlqTopic, d, DISCARD, by, at).execute()));
  }

  private void insert(int rows, Consumer<DSLContext> inserts) {
    if (rows > 0) {
      dsl.transaction(c -> inserts.accept(c.dsl()));
    }
  }

  private static InsertSetMoreStep<?> row(
      DSLContext tx, String dlqTopic, DeadLetter d, String action, String by, Instant at) {
    return tx.insertInto(DLQ_REDRIVE_LOG)
        .set(DLQ_REDRIVE_LOG.DLQ_TOPIC, dlqTopic)
        .set(DLQ_REDRIVE_LOG.DLQ_PARTITION, d.partition())
        .set(DLQ_REDRIVE_LOG.DLQ_OFFSET, d.offset())
        .set(DLQ_REDRIVE_LOG.MESSAGE_ID, d.messageId().orElse(null))
        .set(DLQ_REDRIVE_LOG.ACTION, action)
        .set(DLQ_REDRIVE_LOG.REDRIVEN_BY, by)
        .set(DLQ_REDRIVE_LOG.REDRIVEN_AT, OffsetDateTime.ofInstant(at, ZoneOffset.UTC));
  }
}

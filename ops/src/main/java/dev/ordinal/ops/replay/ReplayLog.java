package dev.ordinal.ops.replay;

import static dev.ordinal.ops.db.Sequences.REPLAY_ID_SEQ;
import static dev.ordinal.ops.db.Tables.REPLAY_LOG;

import dev.ordinal.messaging.db.Migrations;
import dev.ordinal.messaging.inbox.InboxPositions;
import dev.ordinal.ops.db.tables.records.ReplayLogRecord;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import javax.sql.DataSource;
import org.jooq.Condition;
import org.jooq.DSLContext;
import org.jooq.impl.DSL;

/**
 * The {@code replay_log} table ({@link #migrate}): one row per partition of each executed replay,
 * rows of one replay sharing its id. Written by {@link ReplayExecutor}, read by {@code ./ordinal
 * replay --history} and {@link ReplayReport}.
 */
public final class ReplayLog {
  private final DSLContext dsl;

  /**
   * The operators' logs ({@code replay_log}, {@code dlq_redrive_log}), next to the inbox whose
   * consumer is replayed or re-driven to.
   */
  public static final String MIGRATIONS = "classpath:db/ops/replay";

  /** Creates or migrates the operators' logs in {@code schema}. */
  public static void migrate(DataSource dataSource, String schema) {
    Migrations.apply(dataSource, schema, MIGRATIONS, "flyway_history_replay");
  }

  /**
   * @param dsl a context on the schema holding {@code replay_log}
   */
  public ReplayLog(DSLContext dsl) {
    this.dsl = dsl;
  }

  /**
   * Writes the plan's rows and runs {@code moveOffsets} in one transaction: when the move fails,
   * nothing is recorded. Partitions the plan moves forward (a skip) move the stored positions of
   * the inbox consumer {@code consumer} in this schema with them ({@link InboxPositions#skipTo}),
   * in the same transaction, so that the consumer does not start from its stored position and apply
   * what was skipped; not when replaying into a new group, whose plan leaves the group read and its
   * consumer untouched. The transaction holds only locks on its own new rows, which nobody waits
   * for, so the Kafka call inside it blocks no one.
   */
  ExecutedReplay record(
      ReplayPlan plan, String executedBy, String consumer, Instant at, Runnable moveOffsets) {
    return dsl.transactionResult(
        c -> {
          DSLContext tx = c.dsl();
          long id = tx.nextval(REPLAY_ID_SEQ);
          List<ExecutedReplay.Move> moves = new ArrayList<>();
          for (PartitionPlan p : plan.partitions()) {
            tx.insertInto(REPLAY_LOG)
                .set(REPLAY_LOG.ID, id)
                .set(REPLAY_LOG.CONSUMER_GROUP, plan.group())
                .set(REPLAY_LOG.TOPIC, plan.topic())
                .set(REPLAY_LOG.PARTITION_NO, p.partition())
                .set(REPLAY_LOG.FROM_OFFSET, p.current())
                .set(REPLAY_LOG.TO_OFFSET, p.target())
                .set(REPLAY_LOG.TARGET, plan.request().describe())
                .set(REPLAY_LOG.EXECUTED_BY, executedBy)
                .set(REPLAY_LOG.EXECUTED_AT, at.atOffset(ZoneOffset.UTC))
                .set(REPLAY_LOG.CONSUMER, consumer)
                .execute();
            moves.add(new ExecutedReplay.Move(p.partition(), p.current(), p.target()));
          }
          if (consumer != null && !plan.request().intoNewGroup()) {
            // a skip moves the inbox consumer's stored position too, or it would start from it;
            // not into a new group: the consumer named serves the group read, left untouched
            Map<Integer, Long> skipped = new HashMap<>();
            plan.partitions().stream()
                .filter(p -> p.target() > p.current())
                .forEach(p -> skipped.put(p.partition(), p.target()));
            InboxPositions.skipTo(tx, consumer, plan.topic(), skipped);
          }
          moveOffsets.run();
          return new ExecutedReplay(
              id,
              plan.group(),
              plan.topic(),
              plan.request().describe(),
              executedBy,
              at,
              Optional.ofNullable(consumer),
              moves);
        });
  }

  /**
   * The latest {@code limit} replays, newest first, optionally of one group and one topic (null for
   * any).
   */
  public List<ExecutedReplay> history(String group, String topic, int limit) {
    Condition where = DSL.trueCondition();
    if (group != null) {
      where = where.and(REPLAY_LOG.CONSUMER_GROUP.eq(group));
    }
    if (topic != null) {
      where = where.and(REPLAY_LOG.TOPIC.eq(topic));
    }
    List<Long> ids =
        dsl.selectDistinct(REPLAY_LOG.ID)
            .from(REPLAY_LOG)
            .where(where)
            .orderBy(REPLAY_LOG.ID.desc())
            .limit(limit)
            .fetch(REPLAY_LOG.ID);
    if (ids.isEmpty()) {
      return List.of();
    }
    return group(
        dsl.selectFrom(REPLAY_LOG)
            .where(REPLAY_LOG.ID.in(ids))
            .orderBy(REPLAY_LOG.ID.desc(), REPLAY_LOG.PARTITION_NO)
            .fetch());
  }

  /** The replay with {@code id}, if recorded. */
  public Optional<ExecutedReplay> find(long id) {
    return group(
            dsl.selectFrom(REPLAY_LOG)
                .where(REPLAY_LOG.ID.eq(id))
                .orderBy(REPLAY_LOG.PARTITION_NO)
                .fetch())
        .stream()
        .findFirst();
  }

  private static List<ExecutedReplay> group(List<ReplayLogRecord> rows) {
    Map<Long, List<ReplayLogRecord>> byId = new LinkedHashMap<>();
    rows.forEach(r -> byId.computeIfAbsent(r.getId(), k -> new ArrayList<>()).add(r));
    List<ExecutedReplay> replays = new ArrayList<>();
    byId.forEach(
        (id, rs) -> {
          ReplayLogRecord first = rs.get(0);
          replays.add(
              new ExecutedReplay(
                  id,
                  first.getConsumerGroup(),
                  first.getTopic(),
                  first.getTarget(),
                  first.getExecutedBy(),
                  first.getExecutedAt().toInstant(),
                  Optional.ofNullable(first.getConsumer()),
                  rs.stream()
                      .map(
                          r ->
                              new ExecutedReplay.Move(
                                  r.getPartitionNo(), r.getFromOffset(), r.getToOffset()))
                      .toList()));
        });
    return replays;
  }
}

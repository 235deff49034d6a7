package dev.ordinal.messaging.outbox;

import static dev.ordinal.messaging.db.Tables.OUTBOX;
import static dev.ordinal.messaging.db.Tables.OUTBOX_RELAYED;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariDataSource;
import dev.ordinal.contracts.AggregateType;
import dev.ordinal.contracts.EventType;
import dev.ordinal.messaging.db.DatabaseSettings;
import dev.ordinal.messaging.db.Migrations;
import dev.ordinal.testkit.OrdinalStackExtension;
import dev.ordinal.testkit.SettableClock;
import dev.ordinal.testkit.TestNamespace;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.InsertValuesStepN;
import org.jooq.JSONB;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(OrdinalStackExtension.class)
class OutboxRetentionIT {
  static final Instant NOW = Instant.parse("2026-03-02T12:00:00Z");

  /**
   * The rows' names are the contract's; their payloads are opaque here (the outbox never reads
   * them), sized for what a test measures.
   */
  static final String ORDER = AggregateType.ORDER.wireName();

  static final String PLACED = EventType.ORDER_PLACED.wireName();

  static DSLContext dsl;

  @BeforeAll
  static void schema(TestNamespace ns) {
    Migrations.applyOutbox(ns.dataSource(), ns.schema());
    dsl = DSL.using(ns.dataSource(), SQLDialect.POSTGRES);
  }

  @BeforeEach
  void emptyTheOutboxAndPublishEverythingWritten() {
    dsl.deleteFrom(OUTBOX).execute();
    relayedThrough(dsl, Duration.ofDays(1)); // a relay has published all these tests write
  }

  /**
   * A relay has published whatever was written until {@code offset} from now (the database's
   * clock): the least {@code relayed_through} of {@code outbox_relayed}.
   */
  private static void relayedThrough(DSLContext ctx, Duration offset) {
    ctx.deleteFrom(OUTBOX_RELAYED).execute();
    OffsetDateTime now = ctx.fetchValue(DSL.currentOffsetDateTime());
    ctx.insertInto(OUTBOX_RELAYED, OUTBOX_RELAYED.RELAY, OUTBOX_RELAYED.RELAYED_THROUGH)
        .values("relay_offsets", now.plus(offset))
        .execute();
  }

  /**
   * After-age deletes only what a relay has published durably: while no relay has, nothing, however
   * old; then only rows written more than a minute before its {@code relayed_through}, by the
   * database's clock, whatever the writer's clock stamped in {@code occurred_at}.
   */
  @Test
  void afterAgeNeverDeletesARowNoRelayHasPublished() {
    dsl.deleteFrom(OUTBOX_RELAYED).execute();
    insert("old-published", 5, NOW.minus(Duration.ofHours(3)), null);
    dsl.update(OUTBOX)
        .set(OUTBOX.WRITTEN_AT, DSL.currentOffsetDateTime().minus(DSL.inline(0.01))) // ~15 min
        .execute();
    insert("old-unpublished", 3, NOW.minus(Duration.ofHours(3)), null);
    Clock clock = Clock.fixed(NOW, ZoneOffset.UTC);
    OutboxRetention job =
        retention(
            OutboxRetentionMode.AFTER_AGE,
            Duration.ofHours(1),
            100,
            new SimpleMeterRegistry(),
            clock);

    assertThat(job.runOnce()).as("no relay has published yet").isZero();

    relayedThrough(dsl, Duration.ofMinutes(-5));
    assertThat(job.runOnce()).isEqualTo(5);
    assertThat(dsl.fetch(OUTBOX).getValues(OUTBOX.AGGREGATE_ID))
        .containsExactlyInAnyOrder("old-unpublished-0", "old-unpublished-1", "old-unpublished-2");
  }

  @Test
  void afterAgeDeletes1234OldRowsIn13BatchesOfAtMost100AndKeepsTheTenNotOlderThanRetention() {
    SettableClock clock = new SettableClock(NOW);
    Instant cutoff = NOW.minus(Duration.ofHours(1));
    insert("age-old", 1234, cutoff.minusMillis(1), null);
    insert("age-at-cutoff", 1, cutoff, null);
    insert("age-new", 9, cutoff.plus(Duration.ofMinutes(10)), null);
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    OutboxRetention retention =
        retention(OutboxRetentionMode.AFTER_AGE, Duration.ofHours(1), 100, registry, clock);

    assertThat(retention.runOnce()).isEqualTo(1234);

    assertThat(retention.batches()).isEqualTo(13); // 12 full batches of 100, then 34
    assertThat(dsl.fetchCount(OUTBOX)).isEqualTo(10);
    assertThat(dsl.fetchCount(OUTBOX, OUTBOX.AGGREGATE_ID.startsWith("age-old"))).isZero();
    assertThat(deletedMetric(registry, "AFTER_AGE")).isEqualTo(1234.0);
    assertThat(
            registry.get("ordinal.outbox.retention.runs").tag("outcome", "success").timer().count())
        .isEqualTo(1);

    // nothing more is old at the same instant: one statement that deletes nothing
    assertThat(retention.runOnce()).isZero();
    assertThat(retention.batches()).isEqualTo(14);

    // ten minutes and a millisecond later every remaining row is past retention
    clock.advance(Duration.ofMinutes(10).plusMillis(1));
    assertThat(retention.runOnce()).isEqualTo(10);
    assertThat(dsl.fetchCount(OUTBOX)).isZero();
    assertThat(retention.deleted()).isEqualTo(1244);
  }

  @Test
  void afterDispatchDeletesOnlyRowsDispatchedBeforeRetentionWhateverTheAgeOfTheOthers() {
    Clock clock = Clock.fixed(NOW, ZoneOffset.UTC);
    Instant cutoff = NOW.minus(Duration.ofDays(1));
    insert("dispatched-old", 300, NOW.minus(Duration.ofDays(3)), cutoff.minusSeconds(1));
    insert("undispatched-old", 200, NOW.minus(Duration.ofDays(30)), null);
    insert("dispatched-recently", 50, NOW.minus(Duration.ofDays(3)), NOW.minusSeconds(3600));
    insert("dispatched-at-cutoff", 1, NOW.minus(Duration.ofDays(3)), cutoff);
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    OutboxRetention retention =
        retention(OutboxRetentionMode.AFTER_DISPATCH, Duration.ofDays(1), 100, registry, clock);

    assertThat(retention.runOnce()).isEqualTo(300);

    assertThat(retention.batches()).isEqualTo(4); // 100, 100, 100, then 0
    assertThat(deletedMetric(registry, "AFTER_DISPATCH")).isEqualTo(300.0);
    assertThat(dsl.fetchCount(OUTBOX)).isEqualTo(251);
    assertThat(dsl.fetchCount(OUTBOX, OUTBOX.AGGREGATE_ID.startsWith("dispatched-old"))).isZero();
    assertThat(dsl.fetchCount(OUTBOX, OUTBOX.AGGREGATE_ID.startsWith("undispatched-old")))
        .isEqualTo(200);
    assertThat(dsl.fetchCount(OUTBOX, OUTBOX.AGGREGATE_ID.startsWith("dispatched-recently")))
        .isEqualTo(50);
    assertThat(dsl.fetchCount(OUTBOX, OUTBOX.AGGREGATE_ID.startsWith("dispatched-at-cutoff")))
        .isEqualTo(1);
  }

  @Test
  void aClosedJobStopsAfterOneBatchWhichTakesTheOldestRows() {
    Clock clock = Clock.fixed(NOW, ZoneOffset.UTC);
    insert("older", 5, NOW.minus(Duration.ofDays(1)), null);
    insert("oldest", 5, NOW.minus(Duration.ofDays(2)), null);
    OutboxRetention retention =
        retention(
            OutboxRetentionMode.AFTER_AGE, Duration.ZERO, 5, new SimpleMeterRegistry(), clock);
    retention.close(); // a closed job stops after its current batch

    assertThat(retention.runOnce()).isEqualTo(5);
    assertThat(dsl.fetchCount(OUTBOX, OUTBOX.AGGREGATE_ID.startsWith("oldest"))).isZero();
    assertThat(dsl.fetchCount(OUTBOX, OUTBOX.AGGREGATE_ID.startsWith("older"))).isEqualTo(5);
  }

  @Test
  void deleteOnWriteLeavesNoRowAfterCommitAndTheJobDeletesNothing() {
    Clock clock = Clock.fixed(NOW, ZoneOffset.UTC);
    Outbox outbox = new Outbox(clock, OutboxRetentionMode.DELETE_ON_WRITE);
    List<UUID> ids = new ArrayList<>();
    List<Integer> visibleInTransaction = new ArrayList<>();
    dsl.transaction(
        c -> {
          for (int i = 0; i < 5; i++) {
            ids.add(outbox.append(c.dsl(), event("dow-" + i)));
          }
          visibleInTransaction.add(c.dsl().fetchCount(OUTBOX));
        });

    assertThat(ids).hasSize(5).doesNotHaveDuplicates();
    assertThat(visibleInTransaction).containsExactly(0);
    assertThat(dsl.fetchCount(OUTBOX)).isZero();

    OutboxRetention retention =
        new OutboxRetention(
            OutboxRetentionConfig.deleteOnWrite(), dsl, new SimpleMeterRegistry(), clock);
    assertThat(retention.runOnce()).isZero();
    assertThat(retention.batches()).isZero();
  }

  @Test
  void theOneArgumentOutboxStillKeepsItsRows() {
    Outbox outbox = new Outbox(Clock.fixed(NOW, ZoneOffset.UTC));
    dsl.transaction(c -> outbox.append(c.dsl(), event("kept")));
    assertThat(dsl.fetchCount(OUTBOX, OUTBOX.AGGREGATE_ID.eq("kept"))).isEqualTo(1);
    assertThat(dsl.fetchValue(DSL.select(OUTBOX.OCCURRED_AT).from(OUTBOX)).toInstant())
        .isEqualTo(NOW);
  }

  @Test
  void anEventTooLargeToPublishIsRefusedAndItsTransactionWritesNothing() {
    Outbox outbox = new Outbox(Clock.fixed(NOW, ZoneOffset.UTC));
    String big = "{\"blob\":\"" + "x".repeat(2_000_000) + "\"}";
    String fits = "{\"blob\":\"" + "x".repeat(900_000) + "\"}";

    assertThatThrownBy(
            () ->
                dsl.transaction(
                    c -> {
                      outbox.append(c.dsl(), event("small-first"));
                      outbox.append(c.dsl(), new OutboxEvent(ORDER, "too-big", PLACED, big));
                    }))
        .isInstanceOf(EventTooLargeException.class)
        .hasMessageContaining(PLACED + " event of order too-big is 2000194 bytes")
        .hasMessageContaining("more than the 1000000 the relay can publish; nothing was written");
    assertThat(dsl.fetchCount(OUTBOX)).isZero();

    dsl.transaction(c -> outbox.append(c.dsl(), new OutboxEvent(ORDER, "fits", PLACED, fits)));
    assertThat(dsl.fetchCount(OUTBOX, OUTBOX.AGGREGATE_ID.eq("fits"))).isEqualTo(1);
    assertThatThrownBy(() -> new Outbox(Clock.systemUTC(), OutboxRetentionMode.AFTER_AGE, 0))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void aStartedJobRetriesAfterAFailedRunAndStopsOnClose(TestNamespace ns) {
    // its own schema, without an outbox table at first: every run fails until it is migrated
    String schema = ns.schema("late");
    try (HikariDataSource pool =
        new DatabaseSettings(ns.stack().jdbcUrl(), ns.stack().dbUser(), ns.stack().dbPassword())
            .withSchema(schema)
            .pool("retention-late", 2)) {
      DSLContext late = DSL.using(pool, SQLDialect.POSTGRES);
      OutboxRetention retention =
          new OutboxRetention(
              OutboxRetentionConfig.builder(OutboxRetentionMode.AFTER_AGE)
                  .retention(Duration.ofMinutes(5))
                  .batchSize(7)
                  .interval(Duration.ofMillis(20))
                  .build(),
              late,
              new SimpleMeterRegistry(),
              Clock.fixed(NOW, ZoneOffset.UTC));
      try (retention) {
        retention.start();
        await().atMost(Duration.ofSeconds(10)).until(() -> retention.failedRuns() >= 2);
        assertThat(retention.deleted()).isZero();

        Migrations.applyOutbox(pool, schema);
        relayedThrough(late, Duration.ofDays(1));
        insert(late, "late-old", 40, NOW.minus(Duration.ofMinutes(6)), null);
        insert(late, "late-new", 3, NOW.minus(Duration.ofMinutes(4)), null);
        await().atMost(Duration.ofSeconds(10)).until(() -> retention.deleted() == 40);
        assertThat(late.fetchCount(OUTBOX)).isEqualTo(3);
        assertThatThrownBy(retention::start).isInstanceOf(IllegalStateException.class);
      }
      await().atMost(Duration.ofSeconds(5)).until(() -> aliveThreadsNamed("outbox-retention") == 0);
    }
  }

  private static long aliveThreadsNamed(String name) {
    return Thread.getAllStackTraces().keySet().stream()
        .filter(t -> t.getName().equals(name) && t.isAlive())
        .count();
  }

  /** A retention job on this schema in {@code mode}, with its retention and batch size. */
  private static OutboxRetention retention(
      OutboxRetentionMode mode,
      Duration retention,
      int batchSize,
      MeterRegistry registry,
      Clock clock) {
    return new OutboxRetention(
        OutboxRetentionConfig.builder(mode).retention(retention).batchSize(batchSize).build(),
        dsl,
        registry,
        clock);
  }

  private static double deletedMetric(MeterRegistry registry, String mode) {
    return registry.get("ordinal.outbox.retention.deleted").tag("mode", mode).counter().count();
  }

  private static OutboxEvent event(String aggregateId) {
    return new OutboxEvent(ORDER, aggregateId, PLACED, "{\"n\":1}");
  }

  private static void insert(String prefix, int rows, Instant occurredAt, Instant dispatchedAt) {
    insert(dsl, prefix, rows, occurredAt, dispatchedAt);
  }

  /**
   * {@code rows} rows, the i-th (from 0) {@code i} milliseconds before {@code occurredAt} and
   * {@code dispatchedAt}, so none is later than the times given.
   */
  private static void insert(
      DSLContext ctx, String prefix, int rows, Instant occurredAt, Instant dispatchedAt) {
    List<Field<?>> columns = new ArrayList<>(Outbox.EVENT_COLUMNS);
    columns.add(OUTBOX.DISPATCHED_AT);
    InsertValuesStepN<?> insert = ctx.insertInto(OUTBOX, columns);
    for (int i = 0; i < rows; i++) {
      insert =
          insert.values(
              UUID.randomUUID(),
              ORDER,
              prefix + "-" + i,
              PLACED,
              JSONB.valueOf("{}"),
              utc(occurredAt.minusMillis(i)),
              null, // no traceparent
              null, // nor tracestate
              dispatchedAt == null ? null : utc(dispatchedAt.minusMillis(i)));
    }
    insert.execute();
  }

  private static OffsetDateTime utc(Instant instant) {
    return OffsetDateTime.ofInstant(instant, ZoneOffset.UTC);
  }
}

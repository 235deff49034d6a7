package dev.ordinal.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ordinal.messaging.db.Migrations;
import dev.ordinal.relay.RelayConfig;
import dev.ordinal.testkit.OrdinalStackExtension;
import dev.ordinal.testkit.TestNamespace;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.UUID;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.jooq.impl.SQLDataType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@code ./ordinal relay mark-dispatched} against the real PostgreSQL, on a team's table and a
 * position as the CDC relay stores it: refusals in one sentence with exit status 2, a dry run that
 * marks nothing, then the rows written up to the last commit less the margin marked, the rows in
 * the margin and those already dispatched left.
 */
@ExtendWith(OrdinalStackExtension.class)
class MarkDispatchedCommandIT extends CommandTest {
  private static final Field<OffsetDateTime> CREATED_AT =
      DSL.field(DSL.name("created_at"), SQLDataType.TIMESTAMPWITHTIMEZONE);
  private static final Field<OffsetDateTime> DISPATCHED_AT =
      DSL.field(DSL.name("dispatched_at"), SQLDataType.TIMESTAMPWITHTIMEZONE);

  private int markDispatched(TestNamespace ns, String... more) {
    clear();
    RelayCommand.MarkDispatched command = new RelayCommand.MarkDispatched();
    command.env = ns.serverEnvironment();
    String[] table = {
      "--schema",
      ns.schema(),
      "--outbox-table",
      "parcel_events",
      "--payload-type",
      "text",
      "--outbox-column",
      "occurred_at=created_at,traceparent=none"
    };
    String[] args = new String[table.length + more.length];
    System.arraycopy(table, 0, args, 0, table.length);
    System.arraycopy(more, 0, args, table.length, more.length);
    return execute(command, args);
  }

  @Test
  void marksTheRowsWrittenUpToTheLastCommitLessTheMarginAndRefusesWithoutAPosition(
      TestNamespace ns) {
    DSLContext sql = DSL.using(ns.dataSource(), SQLDialect.POSTGRES);
    var events = DSL.table(DSL.name(ns.schema(), "parcel_events"));
    sql.createTable(events)
        .column("id", SQLDataType.UUID.notNull())
        .column("aggregate_type", SQLDataType.VARCHAR(64).notNull())
        .column("aggregate_id", SQLDataType.VARCHAR(64).notNull())
        .column("event_type", SQLDataType.VARCHAR(64).notNull())
        .column("payload", SQLDataType.CLOB.notNull())
        .column(CREATED_AT.getName(), SQLDataType.TIMESTAMPWITHTIMEZONE.notNull())
        .execute();
    assertThat(markDispatched(ns)).isEqualTo(2);
    assertThat(refusal()).contains("parcel_events has no dispatched_at column");

    sql.alterTable(events).addColumn(DISPATCHED_AT).execute();
    assertThat(markDispatched(ns)).isEqualTo(2);
    assertThat(refusal()).contains("No position of the CDC relay is stored");

    // the position: the last relayed transaction committed at `commit`
    Instant commit = Instant.now().truncatedTo(ChronoUnit.MICROS);
    storePosition(sql, ns.schema(), commit);
    OffsetDateTime earlier = commit.minus(Duration.ofHours(1)).atOffset(ZoneOffset.UTC);
    for (Duration before : new Duration[] {Duration.ofMinutes(10), Duration.ofMinutes(2)}) {
      insert(sql, events, commit.minus(before), null);
    }
    insert(sql, events, commit.minusSeconds(30), null); // in the margin
    insert(sql, events, commit.plusSeconds(30), null); // after the position
    insert(sql, events, commit.minus(Duration.ofMinutes(10)), earlier); // a poller's

    assertThat(markDispatched(ns)).as(err.toString()).isZero();
    assertThat(out.toString())
        .contains(
            ns.schema()
                + ".parcel_events: 2 rows would be marked dispatched (written up to "
                + commit.minusSeconds(60)
                + ", the last commit "
                + commit
                + " less 1m); 1 rows in the margin left for the poller")
        .contains("Dry run");
    assertThat(sql.fetchCount(events, DISPATCHED_AT.isNotNull())).as("a dry run").isEqualTo(1);

    assertThat(markDispatched(ns, "--margin", "5m")).isZero();
    assertThat(out.toString())
        .contains(": 1 rows would be marked")
        .contains("2 rows in the margin");

    assertThat(markDispatched(ns, "--execute")).as(err.toString()).isZero();
    assertThat(out.toString()).contains(": 2 rows marked dispatched").contains("Done");
    assertThat(sql.fetchCount(events, DISPATCHED_AT.isNull()))
        .as("the rows in the margin and after the position are left for the poller")
        .isEqualTo(2);
    assertThat(sql.fetchCount(events, DISPATCHED_AT.eq(earlier)))
        .as("a row already dispatched keeps its time")
        .isEqualTo(1);
  }

  @Test
  void onOrdinalsOutboxMarksByWrittenAtNotByTheWritersClock(TestNamespace ns) {
    String schema = ns.schema("own");
    Migrations.applyOutbox(ns.dataSource(), schema);
    DSLContext sql = DSL.using(ns.dataSource(), SQLDialect.POSTGRES);
    Instant commit = Instant.now().truncatedTo(ChronoUnit.MICROS);
    storePosition(sql, schema, commit);
    var outbox = DSL.table(DSL.name(schema, "outbox"));
    var writtenAt = DSL.field(DSL.name("written_at"), SQLDataType.TIMESTAMPWITHTIMEZONE);
    // a writer whose clock runs two hours behind PostgreSQL's: occurred_at says nothing
    Instant behind = commit.minus(Duration.ofHours(2));
    for (Duration before : new Duration[] {Duration.ofMinutes(5), Duration.ofSeconds(30)}) {
      sql.insertInto(outbox)
          .set(DSL.field(DSL.name("id")), UUID.randomUUID())
          .set(DSL.field(DSL.name("aggregate_type")), "order")
          .set(DSL.field(DSL.name("aggregate_id")), "order-1")
          .set(DSL.field(DSL.name("event_type")), "OrderPlaced")
          .set(DSL.field(DSL.name("payload"), SQLDataType.JSONB), org.jooq.JSONB.valueOf("{}"))
          .set(DSL.field(DSL.name("occurred_at")), behind.atOffset(ZoneOffset.UTC))
          .set(writtenAt, commit.minus(before).atOffset(ZoneOffset.UTC))
          .execute();
    }
    clear();
    RelayCommand.MarkDispatched command = new RelayCommand.MarkDispatched();
    command.env = ns.serverEnvironment();
    assertThat(execute(command, "--schema", schema, "--execute")).as(err.toString()).isZero();
    assertThat(out.toString())
        .contains(schema + ".outbox: 1 rows marked dispatched")
        .contains("1 rows in the margin left for the poller");
    assertThat(
            sql.fetchCount(
                outbox,
                DISPATCHED_AT
                    .isNull()
                    .and(writtenAt.eq(commit.minusSeconds(30).atOffset(ZoneOffset.UTC)))))
        .as("the row written in the margin is left, whatever its occurred_at")
        .isEqualTo(1);
  }

  /** A position as the CDC relay of {@code schema} stores it: last commit at {@code commit}. */
  private static void storePosition(DSLContext sql, String schema, Instant commit) {
    var offsets = DSL.table(DSL.name(schema, RelayConfig.defaultName(schema) + "_offsets"));
    sql.createTable(offsets)
        .column("id", SQLDataType.VARCHAR(36).notNull())
        .column("offset_key", SQLDataType.VARCHAR(1255))
        .column("offset_val", SQLDataType.VARCHAR(1255))
        .column("record_insert_ts", SQLDataType.LOCALDATETIME.notNull())
        .column("record_insert_seq", SQLDataType.INTEGER.notNull())
        .execute();
    long micros = ChronoUnit.MICROS.between(Instant.EPOCH, commit);
    sql.insertInto(offsets)
        .set(DSL.field(DSL.name("id")), UUID.randomUUID().toString())
        .set(DSL.field(DSL.name("offset_key")), "[\"ordinal\",{\"server\":\"ordinal\"}]")
        .set(DSL.field(DSL.name("offset_val")), "{\"lsn\":1000,\"ts_usec\":" + micros + "}")
        .set(DSL.field(DSL.name("record_insert_ts")), LocalDateTime.now(ZoneOffset.UTC))
        .set(DSL.field(DSL.name("record_insert_seq")), 1)
        .execute();
  }

  private static void insert(
      DSLContext sql, org.jooq.Table<?> events, Instant at, OffsetDateTime dispatched) {
    sql.insertInto(events)
        .set(DSL.field(DSL.name("id")), UUID.randomUUID())
        .set(DSL.field(DSL.name("aggregate_type")), "parcel")
        .set(DSL.field(DSL.name("aggregate_id")), "parcel-1")
        .set(DSL.field(DSL.name("event_type")), "Shipped")
        .set(DSL.field(DSL.name("payload")), "{}")
        .set(CREATED_AT, at.atOffset(ZoneOffset.UTC))
        .set(DISPATCHED_AT, dispatched)
        .execute();
  }
}

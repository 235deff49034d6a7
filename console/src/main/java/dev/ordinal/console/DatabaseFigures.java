package dev.ordinal.console;

import static dev.ordinal.billing.db.Tables.INVOICE;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ordinal.billing.GapAudit;
import dev.ordinal.billing.InvoiceStatus;
import dev.ordinal.ops.replay.ExecutedReplay;
import dev.ordinal.ops.replay.ReplayLog;
import dev.ordinal.ops.replay.ReplayReport;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.Record;
import org.jooq.Table;
import org.jooq.impl.DSL;

/**
 * What PostgreSQL holds of the pipe: each outbox and how far its relay got, each logical
 * replication slot and the WAL it holds back, invoices by status with the stuck and rejected ones,
 * the gap audit per series and the recent replays. Every read is a jOOQ query with bind values.
 */
final class DatabaseFigures {
  /** A draft or sending invoice created this long ago is listed as stuck. */
  static final Duration STUCK_AFTER = Duration.ofMinutes(5);

  /** At most this many invoices of each list, and replays. */
  static final int LIST_LIMIT = 20;

  private static final Field<OffsetDateTime> WRITTEN_AT =
      DSL.field(DSL.name("written_at"), OffsetDateTime.class);
  private static final Field<OffsetDateTime> RELAYED_THROUGH =
      DSL.field(DSL.name("relayed_through"), OffsetDateTime.class);

  private final DSLContext dsl;

  /**
   * @param dsl a context whose search path starts with billing's schema
   */
  DatabaseFigures(DSLContext dsl) {
    this.dsl = dsl;
  }

  /**
   * One outbox: its rows, the newest, the rows written in the last minute (the rate), and the rows
   * written after the relay's stored position ({@code outbox_relayed}): an upper bound of what the
   * relay has not published, since the relay stores its position after it publishes.
   */
  ObjectNode outbox(String schema, ObjectNode into) {
    Table<?> outbox = DSL.table(DSL.name(schema, "outbox"));
    Record r =
        dsl.select(
                DSL.count(),
                DSL.max(WRITTEN_AT),
                DSL.count().filterWhere(WRITTEN_AT.gt(ago(Duration.ofMinutes(1)))))
            .from(outbox)
            .fetchOne();
    into.put("schema", schema);
    into.put("rows", r.get(0, Integer.class));
    into.put("newestWrittenAt", text(r.get(1, OffsetDateTime.class)));
    into.put("writtenLastMinute", r.get(2, Integer.class));
    OffsetDateTime through =
        dsl.select(DSL.min(RELAYED_THROUGH))
            .from(DSL.table(DSL.name(schema, "outbox_relayed")))
            .fetchOne(0, OffsetDateTime.class);
    into.put("relayedThrough", text(through));
    if (through == null) {
      into.putNull("unrelayedAtMost");
    } else {
      into.put("unrelayedAtMost", dsl.fetchCount(outbox, WRITTEN_AT.gt(through)));
    }
    return into;
  }

  /**
   * Every logical replication slot: active or not, the WAL it holds back from {@code restart_lsn}
   * (what fills the disk) and from {@code confirmed_flush_lsn} (what its client has not confirmed),
   * and {@code wal_status}.
   */
  void slots(ArrayNode into) {
    Field<String> name = DSL.field(DSL.name("slot_name"), String.class);
    dsl.select(
            name,
            DSL.field(DSL.name("active"), Boolean.class),
            DSL.field("pg_wal_lsn_diff(pg_current_wal_lsn(), restart_lsn)::bigint", Long.class),
            DSL.field(
                "pg_wal_lsn_diff(pg_current_wal_lsn(), confirmed_flush_lsn)::bigint", Long.class),
            DSL.field(DSL.name("wal_status"), String.class))
        .from(DSL.table(DSL.name("pg_replication_slots")))
        .where(DSL.field(DSL.name("slot_type"), String.class).eq("logical"))
        .orderBy(name)
        .forEach(
            r -> {
              ObjectNode s = into.addObject();
              s.put("slot", r.value1());
              s.put("active", Boolean.TRUE.equals(r.value2()));
              s.put("restartLagBytes", r.value3());
              s.put("confirmedLagBytes", r.value4());
              s.put("walStatus", r.value5());
            });
  }

  /** Invoices by status, the stuck ones (draft or sending too long) and the rejected (error). */
  void invoices(ObjectNode into) {
    ObjectNode byStatus = into.putObject("byStatus");
    for (InvoiceStatus s : InvoiceStatus.values()) {
      byStatus.put(s.name(), 0);
    }
    dsl.select(INVOICE.STATUS, DSL.count())
        .from(INVOICE)
        .groupBy(INVOICE.STATUS)
        .forEach(r -> byStatus.put(r.value1(), r.value2()));
    list(
        into.putArray("stuck"),
        INVOICE
            .STATUS
            .in(InvoiceStatus.DRAFT.name(), InvoiceStatus.SENDING.name())
            .and(INVOICE.CREATED_AT.lt(ago(STUCK_AFTER))));
    list(into.putArray("rejected"), INVOICE.STATUS.eq(InvoiceStatus.ERROR.name()));
  }

  private void list(ArrayNode into, org.jooq.Condition which) {
    dsl.select(
            INVOICE.ID,
            INVOICE.ORDER_ID,
            INVOICE.SERIES,
            INVOICE.NUMBER,
            INVOICE.STATUS,
            INVOICE.CREATED_AT,
            INVOICE.LAST_ERROR)
        .from(INVOICE)
        .where(which)
        .orderBy(INVOICE.ID)
        .limit(LIST_LIMIT)
        .forEach(
            r -> {
              ObjectNode i = into.addObject();
              i.put("id", r.value1());
              i.put("orderId", String.valueOf(r.value2()));
              i.put("series", r.value3());
              i.put("number", r.value4());
              i.put("status", r.value5());
              i.put("createdAt", text(r.value6()));
              i.put("lastError", r.value7());
            });
  }

  /** The gap audit ({@link GapAudit}) of every series. */
  void audit(ArrayNode into) {
    for (GapAudit.SeriesReport r : new GapAudit(dsl).run(null)) {
      ObjectNode s = into.addObject();
      s.put("series", r.series());
      s.put("highest", r.highest());
      s.put("clean", r.clean());
      s.put("missingNumbers", r.missingNumbers());
      ArrayNode gaps = s.putArray("gaps");
      r.gaps().forEach(g -> gaps.add(g[0] == g[1] ? Long.toString(g[0]) : g[0] + ".." + g[1]));
      ArrayNode duplicates = s.putArray("duplicates");
      r.duplicates().forEach(duplicates::add);
    }
  }

  /** The inbox consumer a replay's report counts with when the replay recorded none. */
  static final String DEFAULT_CONSUMER = "billing";

  /** Reports that are final (the group read past every replayed record), by replay id. */
  private final Map<Long, ReplayReport> finalReports = new ConcurrentHashMap<>();

  /** A group's committed offsets on a topic, by partition; empty when it has none. */
  interface Committed {
    Map<Integer, Long> of(String group, String topic) throws Exception;
  }

  /**
   * The latest replays of the replay log in billing's schema, each with its report as {@code
   * ./ordinal replay --report} gives it (redelivered, read, duplicates, new effects, final or not);
   * none when it has no log yet.
   */
  void replays(ArrayNode into, Committed committed) throws Exception {
    if (dsl.fetchValue(DSL.field("to_regclass({0})", String.class, DSL.val("replay_log")))
        == null) {
      return;
    }
    List<ExecutedReplay> replays = new ReplayLog(dsl).history(null, null, LIST_LIMIT);
    for (ExecutedReplay r : replays) {
      ObjectNode o = into.addObject();
      o.put("id", r.id());
      o.put("group", r.group());
      o.put("topic", r.topic());
      o.put("target", r.target());
      o.put("executedBy", r.executedBy());
      o.put("executedAt", r.executedAt().toString());
      o.put("partitions", r.moves().size());
      o.put("redelivered", r.redelivered());
      report(o.putObject("report"), r, committed);
    }
  }

  private void report(ObjectNode o, ExecutedReplay r, Committed committed) throws Exception {
    String consumer = r.consumer().orElse(DEFAULT_CONSUMER);
    o.put("consumer", consumer);
    ReplayReport report = finalReports.get(r.id());
    if (report == null) {
      try {
        report = ReplayReport.of(r, consumer, dsl, committed.of(r.group(), r.topic()));
      } catch (org.jooq.exception.DataAccessException e) {
        if ("42P01".equals(e.sqlState())) {
          o.put("error", "no inbox table in this schema");
          return;
        }
        throw e;
      }
      if (report.caughtUp()) {
        finalReports.put(r.id(), report);
      }
    }
    o.put("read", report.read());
    o.put("duplicates", report.duplicates());
    o.put("newEffects", report.newEffects());
    o.put("final", report.caughtUp());
  }

  /** The database's clock minus a fixed interval (the rows' timestamps are the database's). */
  private static Field<OffsetDateTime> ago(Duration d) {
    return DSL.field(
        "now() - {0}::interval", OffsetDateTime.class, DSL.val(d.toSeconds() + " seconds"));
  }

  private static String text(OffsetDateTime t) {
    return t == null ? null : t.toInstant().toString();
  }
}

package dev.ordinal.relay.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ordinal.messaging.ConfigurationException;
import dev.ordinal.messaging.Preflight;
import dev.ordinal.relay.PositionLostException;
import dev.ordinal.relay.RelayConfig;
import dev.ordinal.runtime.ServerUnavailableException;
import java.io.IOException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Instant;
import java.util.Optional;
import org.jooq.DSLContext;
import org.jooq.Record3;
import org.jooq.impl.DSL;

/**
 * Where the relay stopped (the position Debezium stored beside the outbox) against where its slot
 * is. A relay streams only when they agree: a stored position with no slot, an invalidated slot, or
 * a slot ahead of the stored position means events may have been skipped, so the relay refuses
 * (fail closed) instead of adopting the slot.
 */
public final class SlotPosition {
  private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(SlotPosition.class);
  private static final ObjectMapper JSON = new ObjectMapper();

  /**
   * The position stored last.
   *
   * @param lsn the WAL position (bytes) the relay had acknowledged; resumes after it
   * @param lastCommit when the last relayed transaction committed, or null
   * @param storedAt when the position was written
   */
  public record Stored(long lsn, Instant lastCommit, Instant storedAt) {}

  /**
   * The slot.
   *
   * @param confirmedFlushLsn what the server keeps WAL for (bytes)
   * @param walStatus {@code reserved}, {@code extended}, {@code unreserved} or {@code lost}
   * @param failover whether a standby with {@code sync_replication_slots} keeps a copy of it (a
   *     PostgreSQL 17 failover slot); null on older servers
   */
  public record Slot(long confirmedFlushLsn, String walStatus, boolean active, Boolean failover) {}

  private SlotPosition() {}

  /**
   * @throws PositionLostException when the slot and the stored position disagree (one sentence:
   *     what, since when, the recovery commands)
   * @throws ServerUnavailableException when PostgreSQL does not answer
   */
  public static void check(RelayConfig c) {
    check(c, 0);
  }

  /**
   * As {@link #check(RelayConfig)}, except that a slot ahead of the stored position is accepted
   * when it is not ahead of {@code acknowledgedHere}: the furthest WAL position whose events this
   * process has had acknowledged by Kafka. Debezium confirms to the slot, when its engine stops,
   * the last position it processed even when storing that position just failed (PostgreSQL shutting
   * down ends the store's connection before the replication connection), so after a restart of
   * PostgreSQL the slot may be ahead of the stored position by events this relay published; those
   * are not lost.
   */
  public static void check(RelayConfig c, long acknowledgedHere) {
    if (c.offsetStore() != RelayConfig.OffsetStore.POSTGRES) {
      return; // a local file: nothing another host could compare it with
    }
    try (Connection conn = connect(c)) {
      DSLContext dsl = DSL.using(conn);
      Optional<Stored> stored = stored(dsl, c);
      if (stored.isEmpty()) {
        return; // never streamed (or reset): the slot, or a new one, is where it starts
      }
      Optional<Slot> slot = slot(dsl, c.slotName());
      String problem;
      if (slot.isEmpty()) {
        problem = "Slot " + c.slotName() + " is missing";
      } else if ("lost".equals(slot.get().walStatus())) {
        problem =
            "Slot "
                + c.slotName()
                + " was invalidated (wal_status lost: the server removed WAL it"
                + " still needed)";
      } else if (slot.get().confirmedFlushLsn() > stored.get().lsn()
          && slot.get().confirmedFlushLsn() > acknowledgedHere) {
        problem =
            "Slot "
                + c.slotName()
                + " is at "
                + lsn(slot.get().confirmedFlushLsn())
                + ", ahead of the position the relay stored ("
                + lsn(stored.get().lsn())
                + ": the slot was recreated or read by someone else)";
      } else {
        if (slot.get().confirmedFlushLsn() > stored.get().lsn()) {
          log.info(
              "Slot {} is at {}, ahead of the stored position {} by events this relay had"
                  + " published (the position could not be stored as PostgreSQL went down);"
                  + " resuming",
              c.slotName(),
              lsn(slot.get().confirmedFlushLsn()),
              lsn(stored.get().lsn()));
        }
        return;
      }
      throw new PositionLostException(refusal(c, problem, stored.get()));
    } catch (SQLException | org.jooq.exception.DataAccessException e) {
      SQLException sql =
          e instanceof SQLException s
              ? s
              : ((org.jooq.exception.DataAccessException) e).getCause(SQLException.class);
      if (sql != null && Preflight.unavailable(sql)) {
        throw new ServerUnavailableException(
            "PostgreSQL did not answer the relay's position check: " + EngineRun.rootMessage(e), e);
      }
      throw new ConfigurationException(
          "The relay could not compare slot "
              + c.slotName()
              + " with its stored position: "
              + EngineRun.rootMessage(e),
          e);
    }
  }

  /**
   * How far before the last relayed commit a re-publication starts: a transaction in flight then
   * wrote its rows (and their {@code occurred_at}) before that commit but committed after it.
   */
  public static final java.time.Duration IN_FLIGHT_MARGIN = java.time.Duration.ofMinutes(1);

  private static String refusal(RelayConfig c, String problem, Stored stored) {
    Instant since = stored.lastCommit() != null ? stored.lastCommit() : stored.storedAt();
    Instant from = since.minus(IN_FLIGHT_MARGIN).truncatedTo(java.time.temporal.ChronoUnit.SECONDS);
    return problem
        + ", and the relay had relayed "
        + c.outbox()
        + " up to "
        + lsn(stored.lsn())
        + " (last commit "
        + since
        + "), so events committed since may not be on Kafka; it will not stream past them:"
        + " run './ordinal relay reset-position --schema "
        + c.outboxSchema()
        + " --execute' (a slot from now), then './ordinal relay republish --schema "
        + c.outboxSchema()
        + " --from "
        + from
        + " --execute' (the outbox rows since a minute before that commit), then start the relay"
        + " again";
  }

  /** The position Debezium stored last, if any. */
  /**
   * Whether the relay has stored a position: false until it first streamed (or after {@code relay
   * reset-position}); in a local offset file, whether the file holds one.
   */
  public static boolean hasStored(RelayConfig c) throws SQLException {
    if (c.offsetStore() != RelayConfig.OffsetStore.POSTGRES) {
      try {
        return java.nio.file.Files.size(c.offsetFile()) > 0;
      } catch (IOException e) {
        return false; // no file: never streamed
      }
    }
    try (Connection conn = connect(c)) {
      return stored(DSL.using(conn), c).isPresent();
    }
  }

  public static Optional<Stored> stored(DSLContext dsl, RelayConfig c) {
    boolean exists =
        dsl.fetchExists(
            DSL.selectOne()
                .from(DSL.table(DSL.name("pg_catalog", "pg_tables")))
                .where(DSL.field(DSL.name("schemaname"), String.class).eq(c.outboxSchema()))
                .and(DSL.field(DSL.name("tablename"), String.class).eq(c.offsetTable())));
    if (!exists) {
      return Optional.empty();
    }
    Record3<String, String, java.time.LocalDateTime> row =
        dsl.select(
                DSL.field(DSL.name("offset_key"), String.class),
                DSL.field(DSL.name("offset_val"), String.class),
                DSL.field(DSL.name("record_insert_ts"), java.time.LocalDateTime.class))
            .from(DSL.table(DSL.name(c.outboxSchema(), c.offsetTable())))
            .orderBy(
                DSL.field(DSL.name("record_insert_ts")).desc(),
                DSL.field(DSL.name("record_insert_seq")).desc())
            .limit(1)
            .fetchOne();
    if (row == null || row.value2() == null) {
      return Optional.empty();
    }
    try {
      JsonNode v = JSON.readTree(row.value2());
      long lsn = lsnOf(v);
      if (lsn == 0) {
        return Optional.empty();
      }
      Instant commit =
          v.hasNonNull("ts_usec")
              ? Instant.EPOCH.plusNanos(v.get("ts_usec").asLong() * 1000)
              : null;
      Instant storedAt =
          row.value3() == null ? null : row.value3().toInstant(java.time.ZoneOffset.UTC);
      return Optional.of(new Stored(lsn, commit, storedAt));
    } catch (IOException e) {
      throw new ConfigurationException(
          "The relay's stored position in "
              + c.outboxSchema()
              + "."
              + c.offsetTable()
              + " is unreadable: "
              + e.getMessage(),
          e);
    }
  }

  /** When the last transaction of a stored Debezium offset value committed; null when unknown. */
  static Instant lastCommitOf(String offsetValue) {
    try {
      JsonNode v = JSON.readTree(offsetValue);
      return v.hasNonNull("ts_usec")
          ? Instant.EPOCH.plusNanos(v.get("ts_usec").asLong() * 1000)
          : null;
    } catch (IOException e) {
      return null;
    }
  }

  /** The WAL position (bytes) of a stored Debezium offset value; 0 when it has none. */
  static long lsnOf(String offsetValue) {
    try {
      return lsnOf(JSON.readTree(offsetValue));
    } catch (IOException e) {
      return 0;
    }
  }

  /** The WAL position (bytes) of a Debezium PostgreSQL source offset; 0 when it has none. */
  public static long lsnOf(java.util.Map<String, ?> offset) {
    if (offset == null) {
      return 0;
    }
    return Math.max(number(offset.get("lsn")), number(offset.get("lsn_commit")));
  }

  private static long number(Object o) {
    return o instanceof Number n ? n.longValue() : 0;
  }

  private static long lsnOf(JsonNode v) {
    return Math.max(v.path("lsn").asLong(0), v.path("lsn_commit").asLong(0));
  }

  /**
   * A warning when {@code slot} is not a failover slot on a server that has them (PostgreSQL 17): a
   * standby does not keep a copy, so a failover loses it (and the relay then refuses to stream).
   * Empty when it is one, or when the server has none.
   */
  public static Optional<String> notFailoverWarning(RelayConfig c, Optional<Slot> slot) {
    return slot.filter(s -> Boolean.FALSE.equals(s.failover()))
        .map(
            s ->
                "Slot "
                    + c.slotName()
                    + " is not a failover slot: a standby does not keep a copy, so a failover"
                    + " loses it and the relay then refuses to stream until 'relay"
                    + " reset-position' and 'relay republish' (docs/RELAY.md, Failover); with no"
                    + " relay running, drop it and let the relay create it again, or run"
                    + " ALTER_REPLICATION_SLOT "
                    + c.slotName()
                    + " (FAILOVER true) on a replication connection");
  }

  /**
   * A warning when the server keeps WAL for a slot without bound ({@code max_slot_wal_keep_size =
   * -1}, PostgreSQL's default): a relay stopped on a poison row, or gone, then makes the primary
   * keep WAL until its disk is full. Empty when a bound is set.
   */
  public static Optional<String> unboundedWalWarning(DSLContext dsl) {
    return unboundedWalWarning(
        dsl.fetchValue(DSL.field("current_setting('max_slot_wal_keep_size')", String.class)));
  }

  /** As {@link #unboundedWalWarning(DSLContext)}, for the setting's value. */
  public static Optional<String> unboundedWalWarning(String keep) {
    return "-1".equals(keep)
        ? Optional.of(
            "max_slot_wal_keep_size is -1: a relay that stops streaming makes this server keep WAL"
                + " without bound, until its disk is full; set it to what the disk can hold for as"
                + " long as a stopped relay may wait (a slot past it is invalidated, and the relay"
                + " then refuses and names the runbook; docs/RELAY.md, \"Settings that matter\")")
        : Optional.empty();
  }

  /** The slot, if it exists. */
  public static Optional<Slot> slot(DSLContext dsl, String slotName) {
    return dsl.select(
            DSL.field("(confirmed_flush_lsn - '0/0'::pg_lsn)::bigint", Long.class),
            DSL.field(DSL.name("wal_status"), String.class),
            DSL.field(DSL.name("active"), Boolean.class),
            // the column exists from PostgreSQL 17 on: read through the row's JSON, null before
            DSL.field("(to_jsonb(s) ->> 'failover')::boolean", Boolean.class))
        .from(DSL.table(DSL.name("pg_catalog", "pg_replication_slots")).as("s"))
        .where(DSL.field(DSL.name("slot_name"), String.class).eq(slotName))
        .fetchOptional()
        .map(
            r ->
                new Slot(
                    r.value1() == null ? 0 : r.value1(),
                    r.value2(),
                    Boolean.TRUE.equals(r.value3()),
                    r.value4()));
  }

  /** {@code 0/16B3748}, as PostgreSQL writes an LSN. */
  static String lsn(long bytes) {
    return Long.toHexString(bytes >>> 32).toUpperCase(java.util.Locale.ROOT)
        + "/"
        + Long.toHexString(bytes & 0xFFFFFFFFL).toUpperCase(java.util.Locale.ROOT);
  }

  /** A short-lived connection for the relay's checks (connect and socket timeouts set). */
  public static Connection connect(RelayConfig c) throws SQLException {
    return DriverManager.getConnection(
        c.db().jdbcUrl(), Jdbc.props(c.db().user(), c.db().password(), "ordinal-relay-check"));
  }
}

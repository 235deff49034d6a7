package dev.ordinal.relay.internal;

import static dev.ordinal.messaging.db.Tables.OUTBOX_RELAYED;

import io.debezium.storage.jdbc.offset.JdbcOffsetBackingStore;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.runtime.WorkerConfig;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.SQLDialect;
import org.jooq.Table;
import org.jooq.exception.DataAccessException;
import org.jooq.impl.DSL;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Debezium's JDBC offset store (same table, same rows), except that a position never goes back: a
 * write whose WAL position is behind the one stored is not made. Only a relay that lost the lead
 * without noticing (frozen, then woken) writes such a position: it would undo what the new leader
 * stored, put the stored position behind the slot, and make every later start refuse to stream
 * (fail closed) although nothing was lost. The check and the write are one transaction, under a
 * transaction advisory lock on the table, so two relays cannot interleave them. {@code relay
 * reset-position} deletes the stored position first, so a fresh start is never refused.
 */
public final class MonotonicOffsetStore extends JdbcOffsetBackingStore {
  private static final Logger log = LoggerFactory.getLogger(MonotonicOffsetStore.class);

  /** First half of the two-int advisory lock key: "ORDO". */
  static final int NAMESPACE = 0x4F52444F;

  private static final Field<String> ID = DSL.field(DSL.name("id"), String.class);
  private static final Field<String> KEY = DSL.field(DSL.name("offset_key"), String.class);
  private static final Field<String> VALUE = DSL.field(DSL.name("offset_val"), String.class);
  private static final Field<LocalDateTime> AT =
      DSL.field(DSL.name("record_insert_ts"), LocalDateTime.class);
  private static final Field<Integer> SEQ = DSL.field(DSL.name("record_insert_seq"), Integer.class);

  private final AtomicInteger seq = new AtomicInteger();
  private String url;
  private String user;
  private String password;
  private String tableName;
  private Table<?> table;
  private Connection writer;
  private boolean refusing;
  private boolean relayedRefused;

  @Override
  public void configure(WorkerConfig config) {
    super.configure(config);
    Map<String, String> o = config.originalsStrings();
    url = o.get("offset.storage.jdbc.connection.url");
    user = o.get("offset.storage.jdbc.connection.user");
    password = o.get("offset.storage.jdbc.connection.password");
    tableName = o.getOrDefault("offset.storage.jdbc.table.name", "debezium_offset_storage");
    table = DSL.table(DSL.name(tableName));
  }

  @Override
  protected synchronized void save() {
    Map<String, String> positions = new HashMap<>(data);
    try {
      save(positions);
    } catch (ConnectException first) {
      // a connection ended under it (a terminated backend, a restart): once more on a new one
      save(positions);
    }
  }

  private void save(Map<String, String> positions) {
    try {
      DSLContext dsl = DSL.using(writer(), SQLDialect.POSTGRES);
      String behind =
          dsl.transactionResult(
              tx -> {
                DSLContext t = tx.dsl();
                t.select(
                        DSL.field(
                            "pg_advisory_xact_lock({0}, {1})",
                            Object.class, DSL.val(NAMESPACE), DSL.val(tableName.hashCode())))
                    .fetch();
                Map<String, String> stored = t.select(KEY, VALUE).from(table).fetchMap(KEY, VALUE);
                for (Map.Entry<String, String> p : positions.entrySet()) {
                  String before = stored.get(p.getKey());
                  if (before != null
                      && SlotPosition.lsnOf(before) > SlotPosition.lsnOf(p.getValue())) {
                    return SlotPosition.lsn(SlotPosition.lsnOf(p.getValue()))
                        + " is behind the stored "
                        + SlotPosition.lsn(SlotPosition.lsnOf(before));
                  }
                }
                t.deleteFrom(table).execute();
                LocalDateTime now = LocalDateTime.now(ZoneOffset.UTC);
                for (Map.Entry<String, String> p : positions.entrySet()) {
                  t.insertInto(table, ID, KEY, VALUE, AT, SEQ)
                      .values(
                          UUID.randomUUID().toString(),
                          p.getKey(),
                          p.getValue(),
                          now,
                          seq.incrementAndGet())
                      .execute();
                }
                recordRelayedThrough(t, positions.values());
                return null;
              });
      if (behind != null && !refusing) {
        log.warn(
            "The relay's position was not stored in {}: {} (another relay has relayed further;"
                + " this one lost the lead)",
            tableName,
            behind);
      }
      refusing = behind != null;
    } catch (SQLException | DataAccessException e) {
      closeWriter();
      throw new ConnectException(
          "Could not store the relay's position in " + tableName + ": " + EngineRun.rootMessage(e),
          e);
    }
  }

  /**
   * How far this relay has durably published, for the outbox's retention: the latest commit among
   * the positions stored in this transaction, in {@code outbox_relayed} under the offsets table's
   * name, never moved back. Nothing on an outbox that predates that table.
   */
  private void recordRelayedThrough(DSLContext t, java.util.Collection<String> values) {
    java.time.Instant through =
        values.stream()
            .map(SlotPosition::lastCommitOf)
            .filter(java.util.Objects::nonNull)
            .max(java.util.Comparator.naturalOrder())
            .orElse(null);
    if (through == null
        || t.fetchValue(DSL.field("to_regclass({0})", String.class, DSL.val("outbox_relayed")))
            == null) {
      return;
    }
    if (!t.fetchValue(
        DSL.field(
            "has_table_privilege({0}, 'INSERT, UPDATE')",
            Boolean.class, DSL.val("outbox_relayed")))) {
      // an error here would abort the position's transaction: say it once, and go on storing
      if (!relayedRefused) {
        log.warn(
            "The relay may not write outbox_relayed beside {}, so the outbox's after-age"
                + " retention deletes nothing; grant it SELECT, INSERT, UPDATE on that table"
                + " ('ordinal relay setup-sql' prints the grants)",
            tableName);
        relayedRefused = true;
      }
      return;
    }
    t.insertInto(OUTBOX_RELAYED, OUTBOX_RELAYED.RELAY, OUTBOX_RELAYED.RELAYED_THROUGH)
        .values(tableName, through.atOffset(ZoneOffset.UTC))
        .onConflict(OUTBOX_RELAYED.RELAY)
        .doUpdate()
        .set(
            OUTBOX_RELAYED.RELAYED_THROUGH,
            DSL.greatest(
                OUTBOX_RELAYED.RELAYED_THROUGH, DSL.excluded(OUTBOX_RELAYED.RELAYED_THROUGH)))
        .set(OUTBOX_RELAYED.UPDATED_AT, DSL.currentOffsetDateTime())
        .execute();
  }

  private Connection writer() throws SQLException {
    if (writer == null || writer.isClosed()) {
      writer =
          DriverManager.getConnection(url, Jdbc.props(user, password, "ordinal-relay-offsets"));
    }
    return writer;
  }

  private void closeWriter() {
    Jdbc.closeQuietly(writer, log, "the offset writer's connection");
    writer = null;
  }

  @Override
  public synchronized void stop() {
    super.stop();
    closeWriter();
  }
}

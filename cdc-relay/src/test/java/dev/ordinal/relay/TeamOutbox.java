package dev.ordinal.relay;

import dev.ordinal.relay.OutboxTable.PayloadType;
import java.util.List;
import java.util.UUID;
import org.jooq.DSLContext;
import org.jooq.Name;
import org.jooq.impl.DSL;
import org.jooq.impl.SQLDataType;

/**
 * An outbox table of a team's own, as polling relays in the wild keep one: other column names
 * ({@code event_id}, {@code entity_type}, {@code entity_id}, {@code kind}, {@code body}, {@code
 * created_at}), a {@code text} payload, no traceparent, and the three columns Ordinal's polling
 * mode needs.
 */
final class TeamOutbox {
  static final OutboxTable TABLE =
      OutboxTable.of(
          "parcel_events",
          List.of(
              "id=event_id",
              "aggregate_type=entity_type",
              "aggregate_id=entity_id",
              "event_type=kind",
              "payload=body",
              "occurred_at=created_at",
              "traceparent=none"),
          PayloadType.TEXT);

  private final DSLContext sql;
  private final Name table;

  /** Creates the table in {@code schema}. */
  TeamOutbox(DSLContext sql, String schema) {
    this.sql = sql;
    this.table = DSL.name(schema, TABLE.table());
    sql.createTable(table)
        .column("event_id", SQLDataType.UUID.notNull())
        .column("entity_type", SQLDataType.VARCHAR(64).notNull())
        .column("entity_id", SQLDataType.VARCHAR(64).notNull())
        .column("kind", SQLDataType.VARCHAR(64).notNull())
        .column("body", SQLDataType.CLOB.notNull())
        .column("created_at", SQLDataType.TIMESTAMPWITHTIMEZONE.notNull())
        .column("dispatched_at", SQLDataType.TIMESTAMPWITHTIMEZONE)
        .column("lease_owner", SQLDataType.VARCHAR(64))
        .column("leased_until", SQLDataType.TIMESTAMPWITHTIMEZONE)
        .constraints(DSL.primaryKey("event_id"))
        .execute();
  }

  /** Writes one event of parcel {@code entity} in a transaction of its own; its id. */
  String insert(String entity, String body) {
    UUID id = UUID.randomUUID();
    sql.insertInto(DSL.table(table))
        .set(DSL.field(DSL.name("event_id")), id)
        .set(DSL.field(DSL.name("entity_type")), "parcel")
        .set(DSL.field(DSL.name("entity_id")), entity)
        .set(DSL.field(DSL.name("kind")), "Shipped")
        .set(DSL.field(DSL.name("body")), body)
        .set(DSL.field(DSL.name("created_at")), DSL.currentOffsetDateTime())
        .execute();
    return id.toString();
  }

  /** Rows a polling relay has not marked dispatched (yet). */
  int undispatched() {
    return sql.fetchCount(DSL.table(table), DSL.field(DSL.name("dispatched_at")).isNull());
  }

  /** Rows marked dispatched. */
  int dispatched() {
    return sql.fetchCount(DSL.table(table), DSL.field(DSL.name("dispatched_at")).isNotNull());
  }

  /** Rows whose {@code created_at} is after {@code after} and at or before {@code upTo}. */
  int writtenBetween(java.time.Instant after, java.time.Instant upTo) {
    var createdAt = DSL.field(DSL.name("created_at"), java.time.OffsetDateTime.class);
    return sql.fetchCount(
        DSL.table(table),
        createdAt
            .gt(after.atOffset(java.time.ZoneOffset.UTC))
            .and(createdAt.le(upTo.atOffset(java.time.ZoneOffset.UTC))));
  }

  /** The polling relay of the table in {@code ns}'s schema, as {@code db}, polling every 50 ms. */
  static PollingRelayConfig poller(
      dev.ordinal.testkit.TestNamespace ns, dev.ordinal.messaging.db.DatabaseSettings db) {
    return PollingRelayConfig.builder(db, ns.stack().kafkaBootstrap(), ns.topicPrefix())
        .instanceId("poller")
        .pollInterval(java.time.Duration.ofMillis(50))
        .outbox(ns.schema(), TABLE, dev.ordinal.messaging.kafka.HeaderFormat.ORDINAL)
        .build();
  }

  /**
   * The CDC relay of the table in {@code ns}'s schema, as {@code db}, slot {@code <ns>_<slot>},
   * dropped when the relay stops if {@code dropSlotOnStop} (kept, as in production, if not).
   */
  static RelayConfig cdc(
      dev.ordinal.testkit.TestNamespace ns,
      dev.ordinal.messaging.db.DatabaseSettings db,
      String slot,
      boolean dropSlotOnStop) {
    String name = ns.name() + "_" + slot;
    return RelayConfig.builder(db, ns.stack().kafkaBootstrap(), ns.schema(), ns.topicPrefix())
        .slot(name, name, dropSlotOnStop)
        .outbox(TABLE, null)
        .instanceId("cdc")
        .build();
  }
}

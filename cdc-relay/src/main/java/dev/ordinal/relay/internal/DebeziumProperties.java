package dev.ordinal.relay.internal;

import dev.ordinal.relay.OutboxTable;
import dev.ordinal.relay.OutboxTable.Column;
import dev.ordinal.relay.RelayConfig;
import java.util.Properties;

/**
 * The embedded Debezium engine's configuration for the outbox: Debezium 3.6.1's PostgreSQL
 * connector over pgoutput, with the outbox EventRouter.
 */
public final class DebeziumProperties {
  static final String HEARTBEAT_QUERY =
      "SELECT pg_logical_emit_message(true, 'ordinal-heartbeat', now()::varchar)";

  private DebeziumProperties() {}

  /**
   * The embedded engine's properties: {@link #connector} and what only the engine needs (where the
   * position is kept, the connection factory that takes the whole URL, the checks left to {@link
   * SlotPosition}).
   */
  public static Properties of(RelayConfig c) {
    Properties p = new Properties();
    if (c.offsetStore() == RelayConfig.OffsetStore.FILE) {
      p.setProperty("offset.storage", "org.apache.kafka.connect.storage.FileOffsetBackingStore");
      p.setProperty("offset.storage.file.filename", c.offsetFile().toString());
    } else {
      // beside the outbox, so a standby or a replacement on another host resumes from it
      // Debezium's JDBC store, except that a position never goes back (a woken former leader)
      p.setProperty("offset.storage", MonotonicOffsetStore.class.getName());
      p.setProperty(
          "offset.storage.jdbc.connection.url",
          c.db().withSchema(c.outboxSchema()).urlWithoutPassword());
      p.setProperty("offset.storage.jdbc.connection.user", c.db().user());
      p.setProperty("offset.storage.jdbc.connection.password", c.db().effectivePassword());
      p.setProperty("offset.storage.jdbc.table.name", c.offsetTable());
      // when the database goes away, storing the position gives up within about a second (the
      // library's default retries 5 times 3 s apart): the engine stops, the relay's loop steps
      // down and its replication connection closes, which a fast shutdown of PostgreSQL waits
      // for; the position stored last stays, so nothing is lost, at most re-sent
      p.setProperty("offset.storage.jdbc.connection.wait.retry.delay.ms", "300");
      p.setProperty("offset.storage.jdbc.connection.retry.max.attempts", "3");
    }
    p.setProperty("offset.flush.interval.ms", Long.toString(c.offsetFlushInterval().toMillis()));
    // never adopt a slot ahead of the stored position (trust_greater_lsn would, skipping every
    // event in between without an error): SlotPosition refuses to stream when they disagree, and
    // the engine resumes from the stored position
    p.setProperty("offset.mismatch.strategy", "no_validation");
    // and Debezium's own check that the slot still has the stored position (its restart_lsn not
    // past it) is SlotPosition's job too: after a PostgreSQL restart the slot can legitimately be
    // ahead of the stored position by events this process had published (the engine confirms
    // them to the slot when it stops, even when storing the position failed), which SlotPosition
    // accepts and Debezium's check refused on every start, forever (RestartResumeIT, once)
    p.setProperty("internal.log.position.check.enable", "false");

    // Debezium names one host and drops the URL's parameters: every connection it makes, the
    // replication stream included, goes through the relay's URL instead (all hosts, bound to the
    // primary, TLS and the rest); hostname and port only name the server in logs and metrics
    p.setProperty("database.connection.factory.class", UrlConnectionFactory.class.getName());
    // Debezium logs its configuration, masking only keys named like a password: the URL goes
    // without the secrets, which reach the driver as the properties user, password, sslpassword
    p.setProperty("database." + UrlConnectionFactory.URL_KEY, c.db().urlWithoutPasswords());
    if (c.db().sslPassword() != null) {
      p.setProperty("database.sslpassword", c.db().sslPassword());
    }
    p.setProperty("database.password", c.db().effectivePassword());
    p.putAll(connector(c));
    return p;
  }

  /** The connector's name, also the engine's. */
  public static String name(RelayConfig c) {
    return "ordinal-relay-" + c.slotName();
  }

  /**
   * What the embedded engine and a connector on Kafka Connect share ({@code ConnectorConfig}): the
   * PostgreSQL connector on {@code c}'s slot, publication and outbox, its database (host, port,
   * database and user; no password), and the outbox EventRouter, then {@code c}'s Debezium
   * properties.
   */
  public static Properties connector(RelayConfig c) {
    Properties p = new Properties();
    p.setProperty("name", name(c));
    p.setProperty("connector.class", "io.debezium.connector.postgresql.PostgresConnector");
    // no retries inside the connector (unlimited by default): a retried connector task creates a
    // slot found missing and streams from now, skipping what was committed in between; the relay's
    // loop retries instead, after SlotPosition's check
    p.setProperty("errors.max.retries", "0");
    p.setProperty("database.hostname", c.db().host());
    p.setProperty("database.port", Integer.toString(c.db().port()));
    p.setProperty("database.dbname", c.db().database());
    p.setProperty("database.user", c.db().user());
    // Debezium's logical server name: it names the engine's JMX metrics and its offsets, so it is
    // the slot's (one per outbox); two engines of one process with the same name would wait on
    // each other's metrics. Outbox events go to the router's topics (<prefix>.<aggregate>).
    p.setProperty("topic.prefix", c.slotName());
    p.setProperty("plugin.name", "pgoutput");
    p.setProperty("slot.name", c.slotName());
    // on PostgreSQL 17 a slot the relay creates is a failover slot: a standby with
    // sync_replication_slots keeps a copy, so the slot survives a promotion (Debezium creates a
    // plain slot on older servers; an existing slot is used as it is)
    p.setProperty("slot.failover", "true");
    p.setProperty("publication.name", c.publicationName());
    p.setProperty("publication.autocreate.mode", c.createPublication() ? "filtered" : "disabled");
    OutboxTable t = c.outboxTable();
    p.setProperty("table.include.list", t.qualified(c.outboxSchema()));
    p.setProperty("snapshot.mode", "no_data");
    p.setProperty("slot.drop.on.stop", Boolean.toString(c.dropSlotOnStop()));
    // a slot still busy when the stream starts (a killed leader's replication connection that the
    // server has not ended yet) is asked again every 500 ms for 10 s, not every 10 s (the
    // library's default), which alone would put a takeover past its 15 s
    p.setProperty("slot.retry.delay.ms", "500");
    p.setProperty("slot.max.retries", "20");
    p.setProperty("tombstones.on.delete", "false");
    p.setProperty("extended.headers.enabled", "false");
    p.setProperty("poll.interval.ms", Long.toString(c.pollInterval().toMillis()));
    p.setProperty("max.batch.size", Integer.toString(c.maxBatchSize()));
    p.setProperty("max.queue.size", Integer.toString(c.maxBatchSize() * 4));
    if (!c.heartbeatInterval().isZero()) {
      // a transactional WAL message: the slot's confirmed position moves on while the outbox is
      // idle and other tables are written (the non-transactional form was tried and did not help)
      p.setProperty("heartbeat.interval.ms", Long.toString(c.heartbeatInterval().toMillis()));
      p.setProperty("heartbeat.action.query", HEARTBEAT_QUERY);
    }

    p.setProperty("transforms", "outbox");
    p.setProperty("transforms.outbox.type", "io.debezium.transforms.outbox.EventRouter");
    p.setProperty("transforms.outbox.table.field.event.id", t.column(Column.ID));
    p.setProperty("transforms.outbox.table.field.event.key", t.column(Column.AGGREGATE_ID));
    p.setProperty("transforms.outbox.table.field.event.payload", t.column(Column.PAYLOAD));
    p.setProperty("transforms.outbox.route.by.field", t.column(Column.AGGREGATE_TYPE));
    p.setProperty(
        "transforms.outbox.route.topic.replacement", c.topicPrefix() + ".${routedByValue}");
    // each column into the header of Ordinal's name (the router's own id header is the event id)
    String placement =
        t.column(Column.EVENT_TYPE)
            + ":header:event-type,"
            + t.column(Column.AGGREGATE_TYPE)
            + ":header:aggregate-type,"
            + t.column(Column.OCCURRED_AT)
            + ":header:occurred-at";
    if (t.column(Column.TRACEPARENT) != null) {
      placement += "," + t.column(Column.TRACEPARENT) + ":header:traceparent";
    }
    if (t.column(Column.TRACESTATE) != null) {
      placement += "," + t.column(Column.TRACESTATE) + ":header:tracestate";
      // a row written before its table had the column (still in the slot when an upgraded relay
      // starts) has no such field: the router then leaves that header out instead of failing
      p.setProperty("transforms.outbox.table.field.additional.missing", "ignore");
    }
    p.setProperty("transforms.outbox.table.fields.additional.placement", placement);
    p.setProperty("transforms.outbox.table.expand.json.payload", "false");

    c.debezium().forEach(p::setProperty);
    return p;
  }
}

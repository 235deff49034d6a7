package dev.ordinal.relay.internal;

import dev.ordinal.messaging.ConfigurationException;
import dev.ordinal.relay.RelayConfig;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.jooq.DSLContext;
import org.jooq.exception.DataAccessException;
import org.jooq.impl.DSL;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** What the relay checks and makes once, when it starts, before it competes for its slot. */
public final class RelayStart {
  private static final Logger log = LoggerFactory.getLogger(RelayStart.class);

  private RelayStart() {}

  /** The publication and the slot, before the engine: what is committed from now on is captured. */
  public static void makeCapturePoint(RelayConfig config) {
    try (Connection c = SlotPosition.connect(config)) {
      DSLContext dsl = DSL.using(c);
      CapturePoint.ensure(dsl, config);
      SlotPosition.notFailoverWarning(config, SlotPosition.slot(dsl, config.slotName()))
          .ifPresent(log::warn);
      SlotPosition.unboundedWalWarning(dsl).ifPresent(log::warn);
    } catch (SQLException | DataAccessException e) {
      throw new ConfigurationException(
          "The relay could not make publication "
              + config.publicationName()
              + " or slot "
              + config.slotName()
              + ": "
              + EngineRun.rootMessage(e)
              + " (the role needs REPLICATION, and ownership of the outbox to create the"
              + " publication; 'ordinal relay setup-sql' prints what to run)",
          e);
    }
  }

  /** The relay's role can read the outbox, or one sentence on what to grant. */
  public static void checkOutboxReadable(RelayConfig config) {
    try (Connection c =
        DriverManager.getConnection(
            config.db().jdbcUrl(), config.db().user(), config.db().password())) {
      DSL.using(c)
          .selectOne()
          .from(config.outboxTable().in(config.outboxSchema()))
          .limit(0)
          .fetch();
      config.outboxTable().check(DSL.using(c), config.outboxSchema());
    } catch (SQLException | DataAccessException e) {
      throw new ConfigurationException(
          "The relay's role "
              + config.db().user()
              + " cannot read "
              + config.outbox()
              + ": create the table (order-service migrates it) or grant SELECT on it"
              + " ('ordinal relay setup-sql' prints the grants).",
          e);
    }
  }

  /** The relay's producer: idempotent, acks=all, bounded waits; the caller's properties last. */
  public static Map<String, Object> producerProps(RelayConfig config) {
    Map<String, Object> p = new HashMap<>();
    p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
    p.put(ProducerConfig.ACKS_CONFIG, "all");
    p.put(ProducerConfig.LINGER_MS_CONFIG, 0);
    // a broker that stays away fails the sends in 30 s rather than 2 min: the engine stops, the
    // events stay unacknowledged in the slot, and the loop shows the outage and runs again
    p.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000);
    p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 30_000);
    // a send that must first learn a topic's partitions (a broker just back, its metadata not yet
    // served) waits 10 s for them rather than the default minute, then fails the same way
    p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 10_000);
    p.putAll(config.kafka());
    return p;
  }
}

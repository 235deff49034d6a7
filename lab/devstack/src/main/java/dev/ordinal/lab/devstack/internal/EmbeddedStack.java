package dev.ordinal.lab.devstack.internal;

import dev.ordinal.lab.devstack.EmbeddedPostgresServer;
import dev.ordinal.lab.devstack.StackMode;
import java.nio.file.Path;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The default stack: embedded PostgreSQL and an in-process KRaft broker under one data dir. */
public final class EmbeddedStack {
  private static final Logger log = LoggerFactory.getLogger(EmbeddedStack.class);

  private EmbeddedStack() {}

  /**
   * Starts both servers; the stack's control stops, starts and restarts them under their clients,
   * and closing it stops both, whether they run or a fault test left them stopped.
   */
  public static FixedAddressStack start(Path dataDir, boolean keepData, boolean durable) {
    long t0 = System.nanoTime();
    EmbeddedPostgresServer pg =
        EmbeddedPostgresServer.start(dataDir.resolve("pg"), keepData, durable);
    EmbeddedKafkaBroker broker;
    try {
      broker = EmbeddedKafkaBroker.start(dataDir.resolve("kafka"), keepData);
    } catch (RuntimeException e) {
      pg.close();
      throw e;
    }
    log.info(
        "Embedded stack up in {} ms: PostgreSQL {} and Kafka {}",
        (System.nanoTime() - t0) / 1_000_000,
        pg.jdbcUrl(),
        broker.bootstrapServers());
    return new FixedAddressStack(
        StackMode.EMBEDDED,
        pg.jdbcUrl(),
        EmbeddedPostgresServer.USER,
        EmbeddedPostgresServer.PASSWORD,
        broker.bootstrapServers(),
        Optional.of(new EmbeddedServerControl(pg, broker)),
        () -> {
          try {
            broker.close();
          } finally {
            pg.close();
          }
        });
  }
}

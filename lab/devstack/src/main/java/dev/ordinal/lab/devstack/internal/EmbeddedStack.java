package dev.ordinal.lab.devstack.internal;

import dev.ordinal.lab.devstack.EmbeddedPostgresServer;
import dev.ordinal.lab.devstack.ServerControl;
import dev.ordinal.lab.devstack.Stack;
import dev.ordinal.lab.devstack.StackMode;
import java.nio.file.Path;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The default stack: embedded PostgreSQL and an in-process KRaft broker under one data dir. */
public final class EmbeddedStack implements Stack {
  private static final Logger log = LoggerFactory.getLogger(EmbeddedStack.class);

  private final EmbeddedPostgresServer postgres;
  private final EmbeddedKafkaBroker kafka;
  private final ServerControl control;

  private EmbeddedStack(EmbeddedPostgresServer postgres, EmbeddedKafkaBroker kafka) {
    this.postgres = postgres;
    this.kafka = kafka;
    this.control = new EmbeddedServerControl(postgres, kafka);
  }

  public static EmbeddedStack start(Path dataDir, boolean keepData, boolean durable) {
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
    return new EmbeddedStack(pg, broker);
  }

  @Override
  public String jdbcUrl() {
    return postgres.jdbcUrl();
  }

  @Override
  public String dbUser() {
    return EmbeddedPostgresServer.USER;
  }

  @Override
  public String dbPassword() {
    return EmbeddedPostgresServer.PASSWORD;
  }

  @Override
  public String kafkaBootstrap() {
    return kafka.bootstrapServers();
  }

  @Override
  public StackMode mode() {
    return StackMode.EMBEDDED;
  }

  /** Both servers are ours: they can be stopped, started and restarted under their clients. */
  @Override
  public Optional<ServerControl> control() {
    return Optional.of(control);
  }

  /** Stops both servers, whether they run or a fault test left them stopped. */
  @Override
  public void close() {
    try {
      kafka.close();
    } finally {
      postgres.close();
    }
  }
}

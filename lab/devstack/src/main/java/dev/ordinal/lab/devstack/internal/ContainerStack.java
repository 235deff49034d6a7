package dev.ordinal.lab.devstack.internal;

import dev.ordinal.lab.devstack.ServerControl;
import dev.ordinal.lab.devstack.Stack;
import dev.ordinal.lab.devstack.StackConfig;
import dev.ordinal.lab.devstack.StackException;
import dev.ordinal.lab.devstack.StackMode;
import java.util.Optional;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.kafka.KafkaContainer;
import org.testcontainers.postgresql.PostgreSQLContainer;

/** Opt-in: PostgreSQL and Kafka in containers, for machines with a Docker engine. */
public final class ContainerStack implements Stack {
  static final String POSTGRES_IMAGE = "postgres:17";
  static final String KAFKA_IMAGE = "apache/kafka:4.1.0";

  private final PostgreSQLContainer postgres;
  private final KafkaContainer kafka;

  private ContainerStack(PostgreSQLContainer postgres, KafkaContainer kafka) {
    this.postgres = postgres;
    this.kafka = kafka;
  }

  public static ContainerStack start() {
    if (!DockerClientFactory.instance().isDockerAvailable()) {
      throw new StackException(
          StackConfig.ENV_STACK
              + "=testcontainers needs a Docker engine and none answered; start one, or unset "
              + StackConfig.ENV_STACK
              + " to use the embedded stack.");
    }
    PostgreSQLContainer pg =
        new PostgreSQLContainer(POSTGRES_IMAGE)
            .withCommand(
                "postgres",
                "-c",
                "wal_level=logical",
                "-c",
                "max_replication_slots=64",
                "-c",
                "max_wal_senders=64");
    KafkaContainer kafka = new KafkaContainer(KAFKA_IMAGE);
    pg.start();
    try {
      kafka.start();
    } catch (RuntimeException e) {
      pg.stop();
      throw e;
    }
    return new ContainerStack(pg, kafka);
  }

  @Override
  public String jdbcUrl() {
    return postgres.getJdbcUrl();
  }

  @Override
  public String dbUser() {
    return postgres.getUsername();
  }

  @Override
  public String dbPassword() {
    return postgres.getPassword();
  }

  @Override
  public String kafkaBootstrap() {
    return kafka.getBootstrapServers();
  }

  @Override
  public Optional<ServerControl> control() {
    // Testcontainers removes a container when it stops it, and a new one comes up on other host
    // ports: not the same server to the clients, so no fault control here
    return Optional.empty();
  }

  @Override
  public StackMode mode() {
    return StackMode.TESTCONTAINERS;
  }

  @Override
  public void close() {
    try {
      kafka.stop();
    } finally {
      postgres.stop();
    }
  }
}

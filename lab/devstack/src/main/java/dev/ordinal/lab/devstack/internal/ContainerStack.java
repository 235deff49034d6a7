package dev.ordinal.lab.devstack.internal;

import dev.ordinal.lab.devstack.StackConfig;
import dev.ordinal.lab.devstack.StackException;
import dev.ordinal.lab.devstack.StackMode;
import java.util.Optional;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.kafka.KafkaContainer;
import org.testcontainers.postgresql.PostgreSQLContainer;

/**
 * Opt-in: PostgreSQL and Kafka in containers, for machines with a Docker engine. No server control:
 * Testcontainers removes a container when it stops it, and a new one comes up on other host ports,
 * which is not the same server to the clients.
 */
public final class ContainerStack {
  static final String POSTGRES_IMAGE = "postgres:17";
  static final String KAFKA_IMAGE = "apache/kafka:4.1.0";

  private ContainerStack() {}

  public static FixedAddressStack start() {
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
    return new FixedAddressStack(
        StackMode.TESTCONTAINERS,
        pg.getJdbcUrl(),
        pg.getUsername(),
        pg.getPassword(),
        kafka.getBootstrapServers(),
        Optional.empty(),
        () -> {
          try {
            kafka.stop();
          } finally {
            pg.stop();
          }
        });
  }
}

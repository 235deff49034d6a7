package dev.ordinal.lab.devstack;

import dev.ordinal.lab.devstack.internal.ContainerStack;
import dev.ordinal.lab.devstack.internal.EmbeddedStack;
import dev.ordinal.lab.devstack.internal.FixedAddressStack;
import java.util.Optional;

/**
 * A running PostgreSQL server (with logical replication) and a running Kafka broker. Closing it
 * stops what it started and leaves external servers alone.
 */
public interface Stack extends AutoCloseable {

  /** JDBC URL of the {@code postgres}-style database the services use. */
  String jdbcUrl();

  String dbUser();

  /** The database password; pass it on, never print it. */
  String dbPassword();

  /** Kafka bootstrap servers. */
  String kafkaBootstrap();

  StackMode mode();

  /**
   * Stops, starts and restarts this stack's servers under their clients, for fault tests; present
   * only when this stack started the servers itself (the embedded stack). External servers are
   * never touched: they are not ours. Nor are Testcontainers' (an opt-in backend): Testcontainers
   * removes a container when it stops it, and a new one comes up on other host ports, which is not
   * the same server to the clients.
   */
  default Optional<ServerControl> control() {
    return Optional.empty();
  }

  @Override
  void close();

  /**
   * Starts (or connects to) the stack that {@code config} describes.
   *
   * @throws StackException when a server cannot start or Docker is asked for and absent
   */
  static Stack start(StackConfig config) {
    return switch (config.mode()) {
      case EMBEDDED -> EmbeddedStack.start(config.dataDir(), config.keepData(), config.durable());
      case EXTERNAL ->
          FixedAddressStack.external(
              config.jdbcUrl(), config.dbUser(), config.dbPassword(), config.kafkaBootstrap());
      case TESTCONTAINERS -> ContainerStack.start();
    };
  }
}

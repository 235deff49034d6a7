package dev.ordinal.lab.demo;

import dev.ordinal.lab.devstack.Stack;
import dev.ordinal.lab.devstack.StackConfig;
import dev.ordinal.lab.devstack.StackMode;
import dev.ordinal.messaging.db.DatabaseSettings;

/** The servers a service command hands its runtime: the stack's, or stand-ins to check options. */
final class StackServers {
  private StackServers() {}

  static DatabaseSettings db(Stack stack) {
    return new DatabaseSettings(stack.jdbcUrl(), stack.dbUser(), stack.dbPassword());
  }

  /** The external database, or a stand-in while the embedded one is not started yet. */
  static DatabaseSettings placeholderDb(StackConfig c) {
    return c.mode() == StackMode.EXTERNAL
        ? new DatabaseSettings(c.jdbcUrl(), c.dbUser(), c.dbPassword())
        : new DatabaseSettings("jdbc:postgresql://localhost:5432/postgres", "postgres", "");
  }

  /** The external Kafka, or a stand-in while the embedded one is not started yet. */
  static String placeholderKafka(StackConfig c) {
    return c.mode() == StackMode.EXTERNAL ? c.kafkaBootstrap() : "localhost:9092";
  }
}

package dev.ordinal.lab.devstack.internal;

import dev.ordinal.lab.devstack.Stack;
import dev.ordinal.lab.devstack.StackMode;

/**
 * A stack whose servers answer at addresses fixed once it is up, and which controls none of them:
 * {@link Stack#control()} stays empty. Closing it runs {@code stop}.
 */
public record FixedAddressStack(
    StackMode mode,
    String jdbcUrl,
    String dbUser,
    String dbPassword,
    String kafkaBootstrap,
    Runnable stop)
    implements Stack {

  /** Servers the user runs: not ours, so closing leaves them alone. */
  public static FixedAddressStack external(
      String jdbcUrl, String dbUser, String dbPassword, String kafkaBootstrap) {
    return new FixedAddressStack(
        StackMode.EXTERNAL, jdbcUrl, dbUser, dbPassword, kafkaBootstrap, () -> {});
  }

  @Override
  public void close() {
    stop.run();
  }

  /** The mode and addresses; never the password. */
  @Override
  public String toString() {
    return mode + " stack: " + dbUser + " at " + jdbcUrl + ", Kafka " + kafkaBootstrap;
  }
}

package dev.ordinal.lab.devstack.internal;

import dev.ordinal.lab.devstack.ServerControl;
import dev.ordinal.lab.devstack.Stack;
import dev.ordinal.lab.devstack.StackMode;
import java.util.Optional;

/**
 * A stack whose servers answer at addresses fixed once it is up (the embedded servers restart on
 * their ports). {@code control} is present only when the stack started the servers itself; closing
 * the stack runs {@code stop}.
 */
public record FixedAddressStack(
    StackMode mode,
    String jdbcUrl,
    String dbUser,
    String dbPassword,
    String kafkaBootstrap,
    Optional<ServerControl> control,
    Runnable stop)
    implements Stack {

  /** Servers the user runs: not ours, so no control, and closing leaves them alone. */
  public static FixedAddressStack external(
      String jdbcUrl, String dbUser, String dbPassword, String kafkaBootstrap) {
    return new FixedAddressStack(
        StackMode.EXTERNAL,
        jdbcUrl,
        dbUser,
        dbPassword,
        kafkaBootstrap,
        Optional.empty(),
        () -> {});
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

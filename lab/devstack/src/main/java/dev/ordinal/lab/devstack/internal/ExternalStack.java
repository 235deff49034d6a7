package dev.ordinal.lab.devstack.internal;

import dev.ordinal.lab.devstack.ServerControl;
import dev.ordinal.lab.devstack.Stack;
import dev.ordinal.lab.devstack.StackConfig;
import dev.ordinal.lab.devstack.StackMode;
import java.util.Optional;

/** Servers the user runs; nothing to start or stop. */
public final class ExternalStack implements Stack {
  private final StackConfig config;

  public ExternalStack(StackConfig config) {
    this.config = config;
  }

  @Override
  public String jdbcUrl() {
    return config.jdbcUrl();
  }

  @Override
  public String dbUser() {
    return config.dbUser();
  }

  @Override
  public String dbPassword() {
    return config.dbPassword();
  }

  @Override
  public String kafkaBootstrap() {
    return config.kafkaBootstrap();
  }

  @Override
  public Optional<ServerControl> control() {
    // not ours: fault tests never stop or restart servers the user runs
    return Optional.empty();
  }

  @Override
  public StackMode mode() {
    return StackMode.EXTERNAL;
  }

  @Override
  public void close() {
    // not ours to stop
  }
}

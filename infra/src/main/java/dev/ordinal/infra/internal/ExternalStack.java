package dev.ordinal.infra.internal;

import dev.ordinal.infra.ServerControl;
import dev.ordinal.infra.Stack;
import dev.ordinal.infra.StackConfig;
import dev.ordinal.infra.StackMode;
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

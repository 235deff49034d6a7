package dev.ordinal.lab.devstack.internal;

import dev.ordinal.lab.devstack.EmbeddedPostgresServer;
import dev.ordinal.lab.devstack.ServerControl;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** {@link ServerControl} of the embedded stack: its own PostgreSQL and in-process broker. */
record EmbeddedServerControl(EmbeddedPostgresServer postgres, EmbeddedKafkaBroker kafka)
    implements ServerControl {
  private static final Logger log = LoggerFactory.getLogger(ServerControl.class);

  @Override
  public void restartPostgres(Shutdown how) {
    postgresTimed("restarted (" + how + " shutdown)", () -> postgres.restart(how));
  }

  @Override
  public void stopPostgres(Shutdown how) {
    postgresTimed("stopped (" + how + " shutdown)", () -> postgres.stop(how));
  }

  @Override
  public void startPostgres() {
    postgresTimed("started", postgres::start);
  }

  @Override
  public boolean isPostgresUp() {
    return postgres.isUp();
  }

  @Override
  public int terminateBackends(Backends which) {
    long t0 = System.nanoTime();
    int terminated = postgres.terminateBackends(which);
    log.info(
        "PostgreSQL: {} backends terminated ({}) in {} ms",
        terminated,
        describe(which),
        millisSince(t0));
    return terminated;
  }

  @Override
  public void stopKafka(Shutdown how) {
    kafkaTimed("stopped (" + how + " shutdown)", () -> kafka.stop(how));
  }

  @Override
  public void startKafka() {
    kafkaTimed("started", kafka::start);
  }

  @Override
  public boolean isKafkaUp() {
    return kafka.isUp();
  }

  /** Runs {@code action} on PostgreSQL and logs it as {@code done}, with the time it took. */
  private void postgresTimed(String done, Runnable action) {
    long t0 = System.nanoTime();
    action.run();
    log.info("PostgreSQL {} on port {} in {} ms", done, postgres.port(), millisSince(t0));
  }

  /** Runs {@code action} on the broker and logs it as {@code done}, with the time it took. */
  private void kafkaTimed(String done, Runnable action) {
    long t0 = System.nanoTime();
    action.run();
    log.info("Kafka broker {} {} in {} ms", kafka.bootstrapServers(), done, millisSince(t0));
  }

  private static String describe(Backends which) {
    if (which.applicationName() == null && which.user() == null) {
      return "all";
    }
    StringBuilder s = new StringBuilder();
    if (which.applicationName() != null) {
      s.append("application_name ").append(which.applicationName());
    }
    if (which.user() != null) {
      s.append(s.isEmpty() ? "" : ", ").append("user ").append(which.user());
    }
    return s.toString();
  }

  private static long millisSince(long t0) {
    return (System.nanoTime() - t0) / 1_000_000;
  }
}

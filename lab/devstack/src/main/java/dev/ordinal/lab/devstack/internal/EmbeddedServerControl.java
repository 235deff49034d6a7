package dev.ordinal.lab.devstack.internal;

import dev.ordinal.lab.devstack.EmbeddedPostgresServer;
import dev.ordinal.lab.devstack.ServerControl;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** {@link ServerControl} of the embedded stack: its own PostgreSQL and in-process broker. */
final class EmbeddedServerControl implements ServerControl {
  private static final Logger log = LoggerFactory.getLogger(ServerControl.class);

  private final EmbeddedPostgresServer postgres;
  private final EmbeddedKafkaBroker kafka;

  EmbeddedServerControl(EmbeddedPostgresServer postgres, EmbeddedKafkaBroker kafka) {
    this.postgres = postgres;
    this.kafka = kafka;
  }

  @Override
  public void restartPostgres(Shutdown how) {
    long t0 = System.nanoTime();
    postgres.restart(how);
    log.info(
        "PostgreSQL restarted ({} shutdown) on port {} in {} ms",
        how,
        postgres.port(),
        millisSince(t0));
  }

  @Override
  public void stopPostgres(Shutdown how) {
    long t0 = System.nanoTime();
    postgres.stop(how);
    log.info(
        "PostgreSQL stopped ({} shutdown) on port {} in {} ms",
        how,
        postgres.port(),
        millisSince(t0));
  }

  @Override
  public void startPostgres() {
    long t0 = System.nanoTime();
    postgres.start();
    log.info("PostgreSQL started on port {} in {} ms", postgres.port(), millisSince(t0));
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
    long t0 = System.nanoTime();
    kafka.stop(how);
    log.info(
        "Kafka broker {} stopped ({} shutdown) in {} ms",
        kafka.bootstrapServers(),
        how,
        millisSince(t0));
  }

  @Override
  public void startKafka() {
    long t0 = System.nanoTime();
    kafka.start();
    log.info("Kafka broker {} started in {} ms", kafka.bootstrapServers(), millisSince(t0));
  }

  @Override
  public boolean isKafkaUp() {
    return kafka.isUp();
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

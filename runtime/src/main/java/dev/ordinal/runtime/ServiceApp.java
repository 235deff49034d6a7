package dev.ordinal.runtime;

/**
 * A service's runtime class (its composition root): constructed, it serves its management port;
 * {@link #start()} waits for its servers, does its checks, migrations and topics, then starts its
 * supervised loops; {@link #close()} drains the work in hand within a bound.
 */
public interface ServiceApp extends AutoCloseable {

  /** The service's name in health, metrics and logs. */
  String service();

  /**
   * Blocks until the service runs.
   *
   * @throws ServiceStoppedException when {@link #requestStop()} came first
   */
  ServiceApp start();

  /** Asks a start in progress to give up; safe from any thread, e.g. a shutdown hook. */
  void requestStop();

  Health health();

  /** The management port, or -1 when there is none. */
  int managementPort();

  /** Stops the loops (the work in hand finishes, bounded), then everything else it started. */
  @Override
  void close();
}

package dev.ordinal.runtime;

import java.time.Clock;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * What every runtime class shares: its {@link ServiceRuntime} (management port open from
 * construction), and health, stop and close delegated to it. A subclass builds its parts in {@link
 * #start()} and keeps them with {@code runtime.keep(...)}.
 */
public abstract class ServiceAppBase implements ServiceApp {
  protected final ServiceRuntime runtime;

  /**
   * Opens the management port; starts nothing else.
   *
   * @throws PortInUseException when the management port is taken
   */
  protected ServiceAppBase(String service, ManagementSettings management, Clock clock) {
    this(service, null, management, clock);
  }

  /**
   * As {@link #ServiceAppBase(String, ManagementSettings, Clock)} for an instance named in the log
   * context of its loops' lines ({@link LogContext#INSTANCE}); null for none.
   */
  protected ServiceAppBase(
      String service, String instance, ManagementSettings management, Clock clock) {
    this.runtime = new ServiceRuntime(service, instance, management, clock);
  }

  /** Starts {@code app}; when that fails, closes what it opened and rethrows. */
  protected static <A extends ServiceApp> A startOrClose(A app) {
    try {
      app.start();
      return app;
    } catch (RuntimeException e) {
      app.close();
      throw e;
    }
  }

  /**
   * Keeps {@code pool} (closed with the app), then migrates {@code schema} through it, retrying
   * while {@code unavailable} says its server is not there (a line every few seconds: "migrating
   * schema &lt;schema&gt;"). Blocks until migrated; returns {@code pool}.
   *
   * @throws ServiceStoppedException when {@link #requestStop()} came first
   */
  protected <P extends AutoCloseable> P keepMigrated(
      P pool, String schema, Predicate<Throwable> unavailable, Consumer<P> migrate) {
    runtime.keep(pool);
    runtime.retrying(
        "migrating schema " + schema,
        unavailable,
        () -> {
          migrate.accept(pool);
          return null;
        });
    return pool;
  }

  @Override
  public String service() {
    return runtime.service();
  }

  @Override
  public Health health() {
    return runtime.health();
  }

  @Override
  public int managementPort() {
    return runtime.managementPort();
  }

  @Override
  public void requestStop() {
    runtime.requestStop();
  }

  /**
   * Stops the loops (the work in hand finishes, bounded), then the parts it kept in reverse order,
   * then the management port.
   */
  @Override
  public void close() {
    runtime.close();
  }
}

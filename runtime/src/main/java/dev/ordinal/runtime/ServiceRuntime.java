package dev.ordinal.runtime;

import dev.ordinal.runtime.internal.Errors;
import dev.ordinal.runtime.internal.JvmMeters;
import dev.ordinal.runtime.internal.ManagementServer;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What every service's runtime class is built on: its metrics registry (with the JVM's and the
 * process's meters bound: memory, GC, threads, classes, CPU, uptime), the {@link Supervisor} of its
 * loops, the servers it needs and whether they answer, its management port ({@code /health/live},
 * {@code /health/ready}, {@code /metrics}), and the parts it started, closed in reverse order.
 *
 * <p>The management port answers from construction on: {@code /health/live} is 200 at once (503
 * only while a loop is {@link LoopState#STALLED}), and {@code /health/ready} is 503 until {@link
 * #started()}, then 200 while every loop is {@link LoopState#RUNNING} and every server answers
 * (checked every {@link #CHECK_INTERVAL}).
 */
public final class ServiceRuntime implements AutoCloseable {
  public static final Duration CHECK_INTERVAL = Duration.ofSeconds(1);
  public static final Duration WAIT_LOG_INTERVAL = Duration.ofSeconds(5);

  private static final Logger log = LoggerFactory.getLogger(ServiceRuntime.class);

  private final String service;
  private final Clock clock;
  private final PrometheusMeterRegistry registry;
  private final Supervisor supervisor;
  private final Map<String, Watched> servers = new LinkedHashMap<>();
  private final Deque<AutoCloseable> parts = new ArrayDeque<>();
  private final CountDownLatch stopRequested = new CountDownLatch(1);
  private final ScheduledExecutorService checks;
  private final ManagementServer management;
  private final JvmMeters jvm;
  private final String managementHost;
  private volatile Health.Phase phase = Health.Phase.STARTING;
  private boolean closed;

  /**
   * Creates the registry and the supervisor and opens the management port.
   *
   * @throws PortInUseException when the management port is taken (one sentence)
   */
  public ServiceRuntime(String service, ManagementSettings management, Clock clock) {
    this(service, null, management, clock);
  }

  /**
   * As {@link #ServiceRuntime(String, ManagementSettings, Clock)}, for an instance of a service
   * that runs several: its name is in the log context of each loop's lines ({@link
   * LogContext#INSTANCE}).
   *
   * @param instance the instance's name ({@code --instance-id}); null for none
   */
  public ServiceRuntime(
      String service, String instance, ManagementSettings management, Clock clock) {
    this.service = service;
    this.clock = clock;
    Tracing.start("ordinal-" + service, System.getenv());
    this.registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    this.jvm = JvmMeters.bindTo(registry);
    this.supervisor =
        new Supervisor(
            service,
            instance,
            registry,
            Supervisor.DEFAULT_INITIAL_BACKOFF,
            Supervisor.DEFAULT_MAX_BACKOFF,
            clock);
    this.checks =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, service + "-server-checks");
              t.setDaemon(true);
              return t;
            });
    checks.scheduleWithFixedDelay(
        this::checkServers, 0, CHECK_INTERVAL.toMillis(), TimeUnit.MILLISECONDS);
    this.managementHost = management.host();
    try {
      this.management =
          management.port() < 0
              ? null
              : ManagementServer.start(service, management, this::health, registry);
    } catch (RuntimeException e) {
      checks.shutdownNow();
      jvm.close();
      throw e;
    }
  }

  public String service() {
    return service;
  }

  public PrometheusMeterRegistry registry() {
    return registry;
  }

  public Supervisor supervisor() {
    return supervisor;
  }

  public Clock clock() {
    return clock;
  }

  /** The management port, or -1 when there is none. */
  public int managementPort() {
    return management == null ? -1 : management.port();
  }

  /**
   * Waits until {@code server} answers, logging one line every {@link #WAIT_LOG_INTERVAL} that
   * names its setting, and watches it from then on for readiness.
   *
   * @throws ServiceStoppedException when {@link #requestStop()} came first
   * @throws RuntimeException the probe's own exception when the server answered but refused (a
   *     configuration to fix)
   */
  public void awaitServer(ServerCheck server) {
    Watched w = watch(server);
    long nextLog = System.nanoTime();
    boolean logged = false;
    while (true) {
      if (stopRequested.getCount() == 0) {
        throw new ServiceStoppedException(
            service + " was stopped while it waited for " + server.name());
      }
      try {
        server.probe().check();
        w.record(null);
        if (logged) {
          log.info("{}: {} at {} answers", service, server.name(), server.address());
        }
        return;
      } catch (ServerUnavailableException e) {
        w.record(e);
        if (System.nanoTime() >= nextLog) {
          log.info(
              "{}: waiting for {} at {} ({}): {}",
              service,
              server.name(),
              server.address(),
              server.setting(),
              Errors.describe(e));
          logged = true;
          nextLog = System.nanoTime() + WAIT_LOG_INTERVAL.toNanos();
        }
      } catch (RuntimeException e) {
        w.record(e);
        throw e;
      } catch (Exception e) {
        w.record(e);
        throw new IllegalStateException(e.getMessage(), e);
      }
      try {
        stopRequested.await(CHECK_INTERVAL.toMillis(), TimeUnit.MILLISECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new ServiceStoppedException(service + " was interrupted while it started");
      }
    }
  }

  /**
   * Runs a start step ({@code what}: "migrating the schema"), and runs it again while it fails
   * because a server does not answer ({@code unavailable} says which failures those are), logging
   * one line every {@link #WAIT_LOG_INTERVAL}. Any other failure ends the start.
   *
   * @throws ServiceStoppedException when {@link #requestStop()} came first
   */
  public <T> T retrying(
      String what, java.util.function.Predicate<Throwable> unavailable, Supplier<T> step) {
    long nextLog = System.nanoTime();
    while (true) {
      if (stopRequested.getCount() == 0) {
        throw new ServiceStoppedException(service + " was stopped while " + what);
      }
      try {
        return step.get();
      } catch (RuntimeException e) {
        if (!unavailable.test(e)) {
          throw e;
        }
        if (System.nanoTime() >= nextLog) {
          log.info("{}: {} waits for its servers: {}", service, what, Errors.describe(e));
          nextLog = System.nanoTime() + WAIT_LOG_INTERVAL.toNanos();
        }
      }
      try {
        stopRequested.await(CHECK_INTERVAL.toMillis(), TimeUnit.MILLISECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new ServiceStoppedException(service + " was interrupted while " + what);
      }
    }
  }

  /** Watches {@code server} for readiness from now on (checked every {@link #CHECK_INTERVAL}). */
  public synchronized Watched watch(ServerCheck server) {
    return servers.computeIfAbsent(server.name(), n -> new Watched(server));
  }

  /** Keeps {@code part} to be closed by {@link #close()}, after the parts kept after it. */
  public synchronized <T extends AutoCloseable> T keep(T part) {
    parts.push(part);
    return part;
  }

  /** The start is complete: readiness now follows the loops and the servers. */
  public void started() {
    phase = Health.Phase.RUNNING;
    log.info(
        "{} started{}",
        service,
        management == null
            ? ""
            : "; health and metrics on http://" + managementHost + ":" + managementPort());
  }

  /** True once {@link #requestStop()} or {@link #close()} was called. */
  public boolean stopRequested() {
    return stopRequested.getCount() == 0;
  }

  /**
   * Asks a start in progress to give up (it throws {@link ServiceStoppedException}); readiness goes
   * down at once. Safe from any thread, e.g. a shutdown hook; {@link #close()} still does the work.
   */
  public void requestStop() {
    phase = Health.Phase.STOPPING;
    stopRequested.countDown();
  }

  public Health health() {
    List<ServerHealth> s = new ArrayList<>();
    synchronized (this) {
      for (Watched w : servers.values()) {
        s.add(w.health());
      }
    }
    return new Health(service, phase, supervisor.health(), s);
  }

  /**
   * Stops the loops (each finishes the work in hand, bounded), then closes the kept parts in
   * reverse order, then the management port. A second call returns at once.
   */
  @Override
  public void close() {
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
    }
    requestStop();
    supervisor.close();
    while (true) {
      AutoCloseable part;
      synchronized (this) {
        part = parts.poll();
      }
      if (part == null) {
        break;
      }
      try {
        part.close();
      } catch (Exception e) {
        log.warn("{}: stopping {} failed: {}", service, part, Errors.describe(e));
      }
    }
    checks.shutdownNow();
    List<Watched> watched;
    synchronized (this) {
      watched = new ArrayList<>(servers.values());
    }
    for (Watched w : watched) {
      if (w.server.probe() instanceof AutoCloseable c) {
        try {
          c.close();
        } catch (Exception e) {
          log.debug("{}: closing the check of {}: {}", service, w.server.name(), e.toString());
        }
      }
    }
    if (management != null) {
      management.close();
    }
    jvm.close();
    log.info("{} stopped", service);
  }

  private void checkServers() {
    List<Watched> all;
    synchronized (this) {
      all = new ArrayList<>(servers.values());
    }
    for (Watched w : all) {
      try {
        w.server.probe().check();
        w.record(null);
      } catch (Exception | Error e) {
        w.record(e);
      }
    }
  }

  /** A server under watch. */
  public final class Watched {
    private final ServerCheck server;
    private boolean up;
    private Instant since = clock.instant();
    private String lastError;

    private Watched(ServerCheck server) {
      this.server = server;
    }

    private synchronized void record(Throwable failure) {
      boolean nowUp = failure == null;
      if (nowUp != up) {
        since = clock.instant();
        if (nowUp) {
          // the loops that failed on it need not wait out their backoff
          supervisor.retryNow();
        }
        if (phase == Health.Phase.RUNNING) {
          if (nowUp) {
            log.info("{}: {} at {} answers again", service, server.name(), server.address());
          } else {
            log.warn(
                "{}: {} at {} does not answer: {}",
                service,
                server.name(),
                server.address(),
                Errors.describe(failure));
          }
        }
      }
      up = nowUp;
      if (failure != null) {
        lastError = Errors.describe(failure);
      }
    }

    private synchronized ServerHealth health() {
      return new ServerHealth(
          server.name(),
          server.setting(),
          server.address(),
          up,
          since,
          up ? null : lastError == null ? "not checked yet" : lastError);
    }
  }
}

package dev.ordinal.lab.demo;

import dev.ordinal.lab.devstack.ServerControl;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Injects one fault at a time into the servers (or the service processes) the demo runs on, and
 * records what each service did: whether it went unready during the outage, how long after the
 * server's return it was ready again, whether its process stayed up, and which loops restarted.
 */
final class FaultInjector {
  /** How long a service may take to be ready again after its server's return before it counts. */
  static final Duration READY_BOUND = Duration.ofSeconds(60);

  /** How much of a health body a fault event quotes. */
  private static final int HEALTH_SHOWN = 1500;

  /**
   * A service not ready this long after the return has its {@code /health/ready} body taken (again
   * every such interval) and shown with its time, so a slow return says which loop held it back.
   */
  static final Duration SLOW_READY = Duration.ofSeconds(5);

  /** How long the services have to notice a server is gone (they check every second). */
  static final Duration NOTICE_BOUND = Duration.ofSeconds(20);

  /**
   * How long a running service's {@code /metrics} may take to answer before its restart counts are
   * recorded as unknown (a busy process can miss one scrape's 5 s timeout).
   */
  static final Duration METRICS_BOUND = Duration.ofSeconds(20);

  /** What can be done to the system while it runs. */
  enum Kind {
    /** PostgreSQL stopped (fast shutdown) and started again once every service noticed. */
    PG_RESTART("PostgreSQL restart (fast shutdown)", true, false),
    /** Every backend of PostgreSQL terminated ({@code pg_terminate_backend}). */
    PG_TERMINATE("PostgreSQL backends terminated", true, false),
    /** PostgreSQL down for the fault's outage. */
    PG_DOWN("PostgreSQL down", true, false),
    /** The Kafka broker stopped as a crash would, started again on its ports and data. */
    KAFKA_DOWN("Kafka broker down", false, true),
    /** SIGKILL of the relay, started again 1-3 s later. */
    KILL_RELAY("kill -9 of the relay", false, false),
    /** SIGKILL of a billing instance, started again 1-3 s later. */
    KILL_BILLING("kill -9 of a billing instance", false, false);

    final String description;
    final boolean postgres;
    final boolean kafka;

    Kind(String description, boolean postgres, boolean kafka) {
      this.description = description;
      this.postgres = postgres;
      this.kafka = kafka;
    }
  }

  /** A fault of the plan: what, and how long the server stays away (PG_DOWN, KAFKA_DOWN). */
  record Fault(Kind kind, Duration outage) {
    static Fault of(Kind kind) {
      return new Fault(kind, Duration.ZERO);
    }
  }

  /** A service process and the servers it needs. */
  record Service(ServiceProcess process, boolean needsPostgres, boolean needsKafka) {
    boolean dependsOn(Kind kind) {
      return (kind.postgres && needsPostgres) || (kind.kafka && needsKafka);
    }
  }

  /**
   * What one service did around one fault.
   *
   * @param alive its process still ran (for a killed service: its new process)
   * @param wentUnready {@code /health/ready} answered 503 (or did not answer) during the outage
   * @param readyAfterMs from the server's return (or the process's restart) to 200, -1 when not
   *     within {@link #READY_BOUND}
   * @param restarts per loop, how much {@code ordinal_loop_restarts_total} rose; null when the
   *     service's {@code /metrics} did not answer before or after the fault within {@link
   *     #METRICS_BOUND} (unknown, never taken for "none")
   */
  record ServiceOutcome(
      String service,
      boolean dependent,
      boolean alive,
      boolean wentUnready,
      long readyAfterMs,
      Map<String, Double> restarts) {}

  /** One fault as it happened. */
  record Outcome(Fault fault, long outageMs, String detail, List<ServiceOutcome> services) {
    /** Every service ready again, this long after the server's return (-1 if one was not). */
    long allReadyAfterMs() {
      long max = 0;
      for (ServiceOutcome s : services) {
        if (s.readyAfterMs() < 0) {
          return -1;
        }
        max = Math.max(max, s.readyAfterMs());
      }
      return max;
    }
  }

  private static final Pattern RESTARTS =
      Pattern.compile("ordinal_loop_restarts_total\\{loop=\"([^\"]+)\",service=\"[^\"]+\"} (\\S+)");

  private final ServerControl control;
  private final List<Service> services;
  private final List<ServiceProcess> billing;
  private final ServiceProcess relay;
  private final Consumer<String> events;
  private final Consumer<ServiceProcess> beforeKill;

  FaultInjector(
      ServerControl control,
      List<Service> services,
      ServiceProcess relay,
      List<ServiceProcess> billing,
      Consumer<String> events,
      Consumer<ServiceProcess> beforeKill) {
    this.control = control;
    this.beforeKill = beforeKill;
    this.services = List.copyOf(services);
    this.relay = relay;
    this.billing = List.copyOf(billing);
    this.events = events;
  }

  /** Injects {@code fault}, waits until every service is ready again, and says what happened. */
  Outcome inject(Fault fault, java.util.SplittableRandom random) throws Exception {
    Map<String, Map<String, Double>> before = restarts();
    Set<String> unready = new java.util.HashSet<>();
    long start = System.nanoTime();
    Disturbed d = disturb(fault, random, start, unready);
    long outageMs = TimeUnit.NANOSECONDS.toMillis(d.returned() - start);
    Map<String, Long> readyAfter = awaitReady(d.returned(), unready);
    Map<String, Map<String, Double>> after = restarts();
    List<ServiceOutcome> outcomes = new ArrayList<>();
    for (Service s : services) {
      String name = s.process().name();
      // a restarted process counts from zero again
      Map<String, Double> was = s.process() == d.killed() ? Map.of() : before.get(name);
      outcomes.add(
          new ServiceOutcome(
              name,
              s.dependsOn(fault.kind()) || s.process() == d.killed(),
              s.process().isAlive(),
              unready.contains(name),
              readyAfter.getOrDefault(name, -1L),
              rose(was, after.get(name))));
    }
    Outcome o = new Outcome(fault, outageMs, d.detail(), outcomes);
    long all = o.allReadyAfterMs();
    events.accept(
        "fault: "
            + (all < 0
                ? "NOT every service was ready again within " + READY_BOUND.toSeconds() + " s"
                : "every service ready " + all + " ms after the return"));
    return o;
  }

  /**
   * What a fault did: when the server (or the killed process) was back, what to say about it, and
   * the process killed, if one was.
   */
  private record Disturbed(long returned, String detail, ServiceProcess killed) {}

  private Disturbed disturb(
      Fault fault, java.util.SplittableRandom random, long start, Set<String> unready)
      throws Exception {
    switch (fault.kind()) {
      case PG_RESTART -> {
        control.stopPostgres(ServerControl.Shutdown.CLEAN);
        events.accept("fault: PostgreSQL stopped (fast shutdown)");
        awaitNoticed(fault.kind(), unready);
        return startedAgain(control::startPostgres, "fault: PostgreSQL started again");
      }
      case PG_DOWN -> {
        control.stopPostgres(ServerControl.Shutdown.CLEAN);
        events.accept("fault: PostgreSQL stopped for " + fault.outage().toSeconds() + " s");
        hold(fault, start, unready);
        return startedAgain(control::startPostgres, "fault: PostgreSQL started again");
      }
      case KAFKA_DOWN -> {
        control.stopKafka(ServerControl.Shutdown.CRASH);
        events.accept("fault: Kafka broker stopped for " + fault.outage().toSeconds() + " s");
        hold(fault, start, unready);
        return startedAgain(
            control::startKafka, "fault: Kafka broker started again on its ports and data");
      }
      case PG_TERMINATE -> {
        int n = control.terminateBackends();
        long returned = System.nanoTime();
        events.accept("fault: terminated " + n + " PostgreSQL backends");
        return new Disturbed(returned, n + " backends", null);
      }
      case KILL_RELAY, KILL_BILLING -> {
        ServiceProcess killed =
            fault.kind() == Kind.KILL_RELAY ? relay : billing.get(random.nextInt(billing.size()));
        long pid = killed.pid();
        beforeKill.accept(killed);
        killed.kill();
        events.accept("chaos: kill -9 " + killed.name() + " (pid " + pid + ")");
        TimeUnit.MILLISECONDS.sleep(1_000 + random.nextInt(2_000)); // the time it stays dead
        killed.start();
        long returned = System.nanoTime();
        events.accept("chaos: restarted " + killed.name() + " (pid " + killed.pid() + ")");
        return new Disturbed(returned, killed.name(), killed);
      }
      default -> throw new IllegalStateException("unknown fault " + fault);
    }
  }

  /** Starts a stopped server again with {@code start}: it is back from now on. */
  private Disturbed startedAgain(Runnable start, String event) {
    start.run();
    long returned = System.nanoTime();
    events.accept(event);
    return new Disturbed(returned, "", null);
  }

  /** Per loop, how much its restart count rose; null when either count is unknown. */
  private static Map<String, Double> rose(Map<String, Double> was, Map<String, Double> now) {
    if (now == null || was == null) {
      return null;
    }
    Map<String, Double> delta = new LinkedHashMap<>();
    for (Map.Entry<String, Double> e : now.entrySet()) {
      double rose = e.getValue() - was.getOrDefault(e.getKey(), 0.0);
      if (rose > 0) {
        delta.put(e.getKey(), rose);
      }
    }
    return delta;
  }

  /** Until every dependent service is unready (they check their servers every second). */
  private void awaitNoticed(Kind kind, Set<String> unready) throws InterruptedException {
    long deadline = System.nanoTime() + NOTICE_BOUND.toNanos();
    while (true) {
      if (System.nanoTime() >= deadline) {
        List<String> missed = new ArrayList<>();
        for (Service s : services) {
          if (s.dependsOn(kind) && !unready.contains(s.process().name())) {
            missed.add(s.process().name() + " (" + s.process().health() + ")");
          }
        }
        events.accept(
            "fault: still ready "
                + NOTICE_BOUND.toSeconds()
                + " s after the server went away: "
                + String.join("; ", missed));
        return;
      }
      boolean all = true;
      for (Service s : services) {
        if (!s.dependsOn(kind)) {
          continue;
        }
        if (!s.process().ready()) {
          unready.add(s.process().name());
        } else if (!unready.contains(s.process().name())) {
          all = false;
        }
      }
      if (all) {
        return;
      }
      TimeUnit.MILLISECONDS.sleep(100);
    }
  }

  /** Keeps the server away for the fault's outage, watching the services meanwhile. */
  private void hold(Fault fault, long start, Set<String> unready) throws InterruptedException {
    long end = start + fault.outage().toNanos();
    while (System.nanoTime() < end) {
      for (Service s : services) {
        if (!s.process().ready()) {
          unready.add(s.process().name());
        }
      }
      TimeUnit.MILLISECONDS.sleep(
          Math.min(250, Math.max(1, (end - System.nanoTime()) / 1_000_000)));
    }
  }

  /** Milliseconds from {@code returned} until each service answered 200, or -1. */
  private Map<String, Long> awaitReady(long returned, Set<String> unready)
      throws InterruptedException {
    Map<String, Long> readyAfter = new HashMap<>();
    Map<String, String> slowHealth = new HashMap<>();
    Map<String, Long> nextLook = new HashMap<>();
    long deadline = returned + READY_BOUND.toNanos();
    while (readyAfter.size() < services.size() && System.nanoTime() < deadline) {
      for (Service s : services) {
        String name = s.process().name();
        if (readyAfter.containsKey(name)) {
          continue;
        }
        long now = System.nanoTime();
        if (s.process().ready()) {
          long ms = TimeUnit.NANOSECONDS.toMillis(now - returned);
          readyAfter.put(name, ms);
          if (slowHealth.containsKey(name)) {
            events.accept(
                "fault: "
                    + name
                    + " ready only "
                    + ms
                    + " ms after the return; its health while it was not: "
                    + slowHealth.get(name));
          }
        } else {
          unready.add(name);
          if (now - returned >= nextLook.getOrDefault(name, SLOW_READY.toNanos())) {
            String h = s.process().health();
            slowHealth.put(
                name, TimeUnit.NANOSECONDS.toMillis(now - returned) + " ms: " + shortened(h));
            nextLook.put(name, now - returned + SLOW_READY.toNanos());
          }
        }
      }
      TimeUnit.MILLISECONDS.sleep(100);
    }
    for (Service s : services) {
      if (!readyAfter.containsKey(s.process().name())) {
        String h = s.process().health();
        events.accept(
            "fault: "
                + s.process().name()
                + " not ready "
                + READY_BOUND.toSeconds()
                + " s after the return: "
                + shortened(h));
      }
    }
    return readyAfter;
  }

  /**
   * Per service, per loop, {@code ordinal_loop_restarts_total} now. A running service whose {@code
   * /metrics} does not answer is asked again until {@link #METRICS_BOUND}; one that still does not
   * (or is not running) is absent, so its restarts are unknown rather than none.
   */
  Map<String, Map<String, Double>> restarts() throws InterruptedException {
    Map<String, Map<String, Double>> all = new HashMap<>();
    long deadline = System.nanoTime() + METRICS_BOUND.toNanos();
    for (Service s : services) {
      String metrics = s.process().metrics();
      while (metrics == null && s.process().isAlive() && System.nanoTime() < deadline) {
        TimeUnit.MILLISECONDS.sleep(250);
        metrics = s.process().metrics();
      }
      if (metrics == null) {
        events.accept(
            "fault: "
                + s.process().name()
                + "'s /metrics did not answer within "
                + METRICS_BOUND.toSeconds()
                + " s; its loop restarts around this fault are unknown");
        continue;
      }
      Map<String, Double> loops = new LinkedHashMap<>();
      Matcher m = RESTARTS.matcher(metrics);
      while (m.find()) {
        loops.put(m.group(1), Double.parseDouble(m.group(2)));
      }
      all.put(s.process().name(), loops);
    }
    return all;
  }

  /** A health body as the run's events show it: its first {@value #HEALTH_SHOWN} characters. */
  private static String shortened(String health) {
    return health.length() > HEALTH_SHOWN ? health.substring(0, HEALTH_SHOWN) + " ..." : health;
  }
}

package dev.ordinal.cli;

import dev.ordinal.messaging.ConfigurationException;
import dev.ordinal.messaging.db.DatabaseSettings;
import dev.ordinal.messaging.kafka.KafkaClients;
import dev.ordinal.runtime.LogSetup;
import dev.ordinal.runtime.PortInUseException;
import dev.ordinal.runtime.ServiceApp;
import dev.ordinal.runtime.ServiceStoppedException;
import dev.ordinal.runtime.StartRefusedException;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;

/** Runs a service's runtime until Ctrl-C (SIGINT/SIGTERM), for {@code ./ordinal <service>}. */
final class Serve {
  /** How long Ctrl-C waits for the service to drain its work and stop. */
  static final Duration STOP_BOUND = Duration.ofSeconds(60);

  private static final DatabaseSettings STAND_IN_DB =
      new DatabaseSettings("jdbc:postgresql://localhost:5432/postgres", "postgres", "");
  private static final KafkaClients STAND_IN_KAFKA = KafkaClients.of("localhost:9092");

  private static final Logger log = LoggerFactory.getLogger(Serve.class);

  private Serve() {}

  /**
   * A service command's whole run on the servers the settings name ({@link ServerSettings}): with
   * one missing it refuses in one sentence (exit 2) before anything starts, after the options were
   * checked (a bad option is named first); otherwise the settings are made from the command's
   * options on those servers and the app created from them runs until Ctrl-C. The Kafka clients
   * carry the client properties of the file {@code ORDINAL_KAFKA_CONFIG} names; a file that cannot
   * be read, or that weakens a guarantee, is refused the same way.
   *
   * @param command the command's name, for the refusal
   * @param settings the command's options, checked, on a database and a Kafka cluster
   * @param banner the line printed once the app runs
   */
  static <S, A extends ServiceApp> int onServers(
      CommandLine cli,
      String command,
      Map<String, String> env,
      BiFunction<DatabaseSettings, KafkaClients, S> settings,
      Function<S, A> create,
      BiFunction<S, A, String> banner)
      throws InterruptedException {
    ServerSettings servers = ServerSettings.from(env);
    if (!servers.hasDatabase() || !servers.hasKafka()) {
      // a bad option is named before a missing server: the options are checked on stand-ins that
      // nothing connects to, then the missing servers are refused
      settings.apply(STAND_IN_DB, STAND_IN_KAFKA);
      servers.requireBoth(command);
    }
    return run(
        cli, settings.apply(servers.database(command), servers.kafka(command)), create, banner);
  }

  /**
   * As {@link #onServers} for a service with no Kafka client (order-service: its outbox is in
   * PostgreSQL and the relay publishes it): only the database must be set, and no Kafka setting is
   * read.
   */
  static <S, A extends ServiceApp> int onDatabase(
      CommandLine cli,
      String command,
      Map<String, String> env,
      Function<DatabaseSettings, S> settings,
      Function<S, A> create,
      BiFunction<S, A, String> banner)
      throws InterruptedException {
    ServerSettings servers = ServerSettings.from(env);
    if (!servers.hasDatabase()) {
      settings.apply(STAND_IN_DB);
    }
    return run(cli, settings.apply(servers.database(command)), create, banner);
  }

  private static <S, A extends ServiceApp> int run(
      CommandLine cli, S s, Function<S, A> create, BiFunction<S, A, String> banner)
      throws InterruptedException {
    AtomicReference<A> app = new AtomicReference<>();
    return untilStopped(
        cli, () -> app.updateAndGet(none -> create.apply(s)), () -> banner.apply(s, app.get()));
  }

  /**
   * Starts {@code app} (waiting for its servers), prints {@code banner} once it runs, and stops it
   * on Ctrl-C, also while it is still starting. Exit status 0; 2 when the configuration is refused
   * (one sentence on stderr, naming the option in its setting's words).
   */
  static int untilStopped(
      CommandLine cli, Supplier<? extends ServiceApp> create, Supplier<String> banner)
      throws InterruptedException {
    PrintWriter out = cli.getOut();
    ServiceApp app;
    try {
      app = create.get();
    } catch (PortInUseException e) {
      return refuse(cli, e.getMessage());
    }
    // closed in reverse order: the app, then Ctrl-C's hold on the JVM
    try (CtrlC stop = new CtrlC(app.service(), STOP_BOUND, app::requestStop);
        app) {
      try {
        app.start();
      } catch (ConfigurationException e) {
        return refuse(cli, e.getMessage());
      } catch (StartRefusedException e) {
        cli.getErr().println("ordinal: " + e.getMessage());
        cli.getErr().flush();
        return e.exitStatus();
      } catch (ServiceStoppedException e) {
        announce(out, app.service() + " stopped while it started");
        return 0;
      }
      announce(out, banner.get());
      announce(
          out,
          app.managementPort() >= 0
              ? String.format(
                  "%s: GET /health/ready and /metrics on management port %d; Ctrl-C stops it.",
                  app.service(), app.managementPort())
              : app.service() + ": Ctrl-C stops it.");
      stop.await();
      announce(out, app.service() + " stopping: finishing the work in hand");
    }
    return 0;
  }

  /**
   * A line for whoever watches the service: printed on the command's output, and logged; when the
   * log itself goes to standard output ({@link LogSetup}), only logged, so that every line there is
   * a log line (one JSON object each with {@code ORDINAL_LOG_FORMAT=json}).
   */
  private static void announce(PrintWriter out, String line) {
    log.info(line);
    if (!LogSetup.logsToStdout()) {
      out.println(line);
      out.flush();
    }
  }

  private static int refuse(CommandLine cli, String sentence) {
    cli.getErr().println("ordinal: " + sentence);
    cli.getErr().flush();
    return 2;
  }
}

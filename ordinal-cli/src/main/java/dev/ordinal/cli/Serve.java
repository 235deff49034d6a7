package dev.ordinal.cli;

import dev.ordinal.infra.Stack;
import dev.ordinal.infra.StackConfig;
import dev.ordinal.messaging.ConfigurationException;
import dev.ordinal.messaging.db.DatabaseSettings;
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
import java.util.function.UnaryOperator;
import picocli.CommandLine;

/** Runs a service's runtime until Ctrl-C (SIGINT/SIGTERM), for {@code ./ordinal <service>}. */
final class Serve {
  /** How long Ctrl-C waits for the service to drain its work and stop. */
  static final Duration STOP_BOUND = Duration.ofSeconds(60);

  private Serve() {}

  /**
   * As {@link #untilStopped(CommandLine, Supplier, Supplier, UnaryOperator)}, words as they are.
   */
  static int untilStopped(
      CommandLine cli, Supplier<? extends ServiceApp> create, Supplier<String> banner)
      throws InterruptedException {
    return untilStopped(cli, create, banner, UnaryOperator.identity());
  }

  /**
   * Starts {@code app} (waiting for its servers), prints {@code banner} once it runs, and stops it
   * on Ctrl-C, also while it is still starting. Exit status 0; 2 when the configuration is refused
   * (one sentence on stderr, through {@code wording}: the library's words for this command's).
   */
  static int untilStopped(
      CommandLine cli,
      Supplier<? extends ServiceApp> create,
      Supplier<String> banner,
      UnaryOperator<String> wording)
      throws InterruptedException {
    return untilStopped(cli, null, create, banner, wording);
  }

  /**
   * A service command's whole run on the servers {@code env} names (the embedded stack when it
   * names none): {@code settings} is checked against stand-ins before any server starts, then the
   * stack is started, the settings made from it, and the app created from them runs until Ctrl-C;
   * the stack is closed after the app, or at once when the settings are refused.
   *
   * @param settings the command's options, checked, on a database and Kafka bootstrap servers
   * @param banner the line printed once the app runs
   */
  static <S, A extends ServiceApp> int onStack(
      CommandLine cli,
      Map<String, String> env,
      BiFunction<DatabaseSettings, String, S> settings,
      Function<S, A> create,
      BiFunction<S, A, String> banner,
      UnaryOperator<String> wording)
      throws InterruptedException {
    StackConfig config = StackConfig.fromEnvironment(Settings.environment(env));
    settings.apply(StackServers.placeholderDb(config), StackServers.placeholderKafka(config));
    Stack stack = Stack.start(config);
    S s = settingsOn(stack, st -> settings.apply(StackServers.db(st), st.kafkaBootstrap()));
    AtomicReference<A> app = new AtomicReference<>();
    return untilStopped(
        cli,
        stack,
        () -> app.updateAndGet(none -> create.apply(s)),
        () -> banner.apply(s, app.get()),
        wording);
  }

  /**
   * The service's settings from the stack a command started; when they are refused, the stack is
   * closed before the refusal goes on (an embedded one is not left running).
   */
  private static <S> S settingsOn(Stack stack, Function<Stack, S> settings) {
    try {
      return settings.apply(stack);
    } catch (RuntimeException e) {
      stack.close();
      throw e;
    }
  }

  /**
   * As {@link #untilStopped(CommandLine, Supplier, Supplier, UnaryOperator)}, also closing {@code
   * servers} (the stack this command started, or null): after the app, and before Ctrl-C lets the
   * JVM exit, so an embedded PostgreSQL and broker are stopped, not left running.
   */
  private static int untilStopped(
      CommandLine cli,
      Stack servers,
      Supplier<? extends ServiceApp> create,
      Supplier<String> banner,
      UnaryOperator<String> wording)
      throws InterruptedException {
    PrintWriter out = cli.getOut();
    ServiceApp app;
    try {
      app = create.get();
    } catch (RuntimeException e) {
      if (servers != null) {
        servers.close();
      }
      if (e instanceof PortInUseException) {
        return refuse(cli, e.getMessage());
      }
      throw e;
    }
    // closed in reverse order: the app, then the servers, then Ctrl-C's hold on the JVM
    try (CtrlC stop = new CtrlC(app.service(), STOP_BOUND, app::requestStop);
        servers;
        app) {
      try {
        app.start();
      } catch (ConfigurationException e) {
        return refuse(cli, wording.apply(e.getMessage()));
      } catch (StartRefusedException e) {
        cli.getErr().println("ordinal: " + e.getMessage());
        cli.getErr().flush();
        return e.exitStatus();
      } catch (ServiceStoppedException e) {
        out.println(app.service() + " stopped while it started");
        out.flush();
        return 0;
      }
      out.println(banner.get());
      if (app.managementPort() >= 0) {
        out.printf(
            "%s: GET /health/ready and /metrics on management port %d; Ctrl-C stops it.%n",
            app.service(), app.managementPort());
      } else {
        out.printf("%s: Ctrl-C stops it.%n", app.service());
      }
      out.flush();
      stop.await();
      out.println(app.service() + " stopping: finishing the work in hand");
      out.flush();
    }
    return 0;
  }

  private static int refuse(CommandLine cli, String sentence) {
    cli.getErr().println("ordinal: " + sentence);
    cli.getErr().flush();
    return 2;
  }
}

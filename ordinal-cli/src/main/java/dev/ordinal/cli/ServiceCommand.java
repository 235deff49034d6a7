package dev.ordinal.cli;

import dev.ordinal.messaging.db.DatabaseSettings;
import dev.ordinal.messaging.kafka.KafkaClients;
import dev.ordinal.runtime.ServiceApp;
import dev.ordinal.runtime.settings.SettingValues;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.function.Supplier;
import picocli.CommandLine;

/**
 * A command that runs a service until Ctrl-C: its options are its settings, named by the {@link
 * SettingOptions} its {@code @Command}'s {@code modelTransformer} is, and its servers are the ones
 * the environment names ({@link ServerSettings}).
 */
abstract class ServiceCommand implements Callable<Integer> {
  // visible for testing
  Map<String, String> env = System.getenv();

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  /** The options' values (or their defaults). */
  SettingValues values() {
    return SettingOptions.values(spec, ((SettingOptions) spec.modelTransformer()).settings());
  }

  /**
   * The service's whole run on the servers the settings name, as {@code ./ordinal <name>} ({@link
   * Serve#onServers}).
   */
  <S, A extends ServiceApp> int serve(
      BiFunction<DatabaseSettings, KafkaClients, S> settings,
      Function<S, A> create,
      BiFunction<S, A, String> banner)
      throws InterruptedException {
    return Serve.onServers(spec.commandLine(), spec.name(), env, settings, create, banner);
  }

  /** As {@link #serve} for a service that needs only the database ({@link Serve#onDatabase}). */
  <S, A extends ServiceApp> int serveOnDatabase(
      Function<DatabaseSettings, S> settings,
      Function<S, A> create,
      BiFunction<S, A, String> banner)
      throws InterruptedException {
    return Serve.onDatabase(spec.commandLine(), spec.name(), env, settings, create, banner);
  }

  /** The settings {@code build} makes of the options; each problem is one sentence. */
  <S> S checked(Supplier<S> build) {
    return SettingOptions.checked(spec, build);
  }
}

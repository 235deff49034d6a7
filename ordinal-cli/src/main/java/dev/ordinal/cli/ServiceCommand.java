package dev.ordinal.cli;

import dev.ordinal.runtime.settings.SettingValues;
import java.util.Map;
import java.util.concurrent.Callable;
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

  /** The settings {@code build} makes of the options; each problem is one sentence. */
  <S> S checked(Supplier<S> build) {
    return SettingOptions.checked(spec, build);
  }
}

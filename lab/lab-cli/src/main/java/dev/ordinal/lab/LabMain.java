package dev.ordinal.lab;

import dev.ordinal.cli.Settings;
import dev.ordinal.lab.bench.BenchCommand;
import dev.ordinal.lab.demo.DemoCommand;
import dev.ordinal.lab.demo.UpCommand;
import dev.ordinal.messaging.ConfigurationException;
import dev.ordinal.runtime.OrdinalException;
import java.util.Map;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The lab's commands, {@code ./ordinal demo|up|bench}: they start a local stack of their own (a
 * real PostgreSQL 17 and a real Kafka broker, no Docker) and the simulators of the external
 * systems, then the services through their runtime classes. Never shipped; the product's commands
 * are {@code dev.ordinal.cli.Main}.
 */
@Command(
    name = "ordinal",
    mixinStandardHelpOptions = true,
    description = {
      "The lab: the demo, a local stack with every service, and the benchmarks, each on a local"
          + " stack of its own (a real PostgreSQL 17 and a real Kafka broker, no Docker).",
      "",
      "The product's commands (each service, the operator commands) are listed by"
          + " './ordinal --help'."
    },
    subcommands = {
      DemoCommand.class,
      UpCommand.class,
      BenchCommand.class,
      CommandLine.HelpCommand.class
    })
public final class LabMain implements Runnable {
  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  public static void main(String[] args) {
    // exit explicitly: Kafka's metrics threads would keep the JVM alive for a while
    System.exit(commandLine(System.getenv()).execute(args));
  }

  /** The lab's commands with every option's default read from {@code env} and ORDINAL_CONFIG. */
  public static CommandLine commandLine(Map<String, String> env) {
    CommandLine cli = new CommandLine(new LabMain());
    try {
      cli.setDefaultValueProvider(new Settings.Defaults(Settings.environment(env)));
    } catch (ConfigurationException e) {
      // reported before a command runs (Settings.checkingFile); the options still parse
    }
    return cli
        // the file may hold the product's settings too: a key neither knows is refused
        .setExecutionStrategy(
            Settings.checkingFile(env, cli, dev.ordinal.cli.Main.commandLine(Map.of())))
        // "bench --only billing": a scenario's name is also a subcommand's
        .setAllowSubcommandsAsOptionParameters(true)
        .setExecutionExceptionHandler(
            (e, cmd, parsed) -> {
              if (e instanceof OrdinalException o) {
                cmd.getErr().println(cmd.getColorScheme().errorText("ordinal: " + o.getMessage()));
                return o.exitStatus();
              }
              throw e;
            });
  }

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getOut());
  }
}

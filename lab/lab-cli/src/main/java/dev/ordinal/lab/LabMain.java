package dev.ordinal.lab;

import dev.ordinal.cli.Main;
import dev.ordinal.lab.bench.BenchCommand;
import dev.ordinal.lab.demo.DemoCommand;
import dev.ordinal.lab.demo.UpCommand;
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
    // the file may hold the product's settings too: a key neither knows is refused
    return Main.configured(new CommandLine(new LabMain()), env, Main.commandLine(Map.of()));
  }

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getOut());
  }
}

package dev.ordinal.lab.bench;

import dev.ordinal.lab.devstack.Stack;
import dev.ordinal.lab.devstack.StackConfig;
import dev.ordinal.lab.devstack.StackMode;
import dev.ordinal.messaging.Preflight;
import dev.ordinal.messaging.db.DatabaseSettings;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Consumer;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import picocli.CommandLine;

/**
 * What {@code bench} and each of its subcommands share to run scenarios: the stack they start, its
 * database checked, the progress lines, an option's value in range, and one scenario run alone with
 * its section printed and written.
 */
final class BenchRun {
  private BenchRun() {}

  /** The stack benchmarks run on: durable, and the embedded one in a data dir of its own. */
  static Stack startStack(PrintWriter o) {
    StackConfig config = StackConfig.fromEnvironment(System.getenv()).withDurable(true);
    if (config.mode() == StackMode.EMBEDDED) {
      config = config.withDataDir(config.dataDir().resolveSibling("bench-stack"));
    }
    o.println("Starting the " + config.mode().name().toLowerCase(Locale.ROOT) + " stack ...");
    o.flush();
    return Stack.start(config);
  }

  /** The stack's database, checked: reachable, and able to do logical replication. */
  static DatabaseSettings checked(Stack stack) {
    DatabaseSettings db = database(stack);
    Preflight.checkPostgres(db, true);
    Preflight.checkKafka(stack.kafkaBootstrap(), Preflight.DEFAULT_TIMEOUT);
    return db;
  }

  /** The stack's database (no connection is made). */
  static DatabaseSettings database(Stack stack) {
    return new DatabaseSettings(stack.jdbcUrl(), stack.dbUser(), stack.dbPassword());
  }

  static Map<String, String> databaseSettings(DatabaseSettings db) {
    try (var pool = db.pool("bench-settings", 1)) {
      return BenchReport.databaseSettings(DSL.using(pool, SQLDialect.POSTGRES));
    }
  }

  static String mode(Stack stack) {
    return stack.mode().name().toLowerCase(Locale.ROOT);
  }

  static String now() {
    return Instant.now().toString().substring(0, 16) + "Z";
  }

  static Consumer<String> progress(PrintWriter o) {
    return line -> {
      o.println("  " + line);
      o.flush();
    };
  }

  /** An option's value, else {@code otherwise}; refused in one sentence when out of range. */
  static int pick(
      CommandLine.Model.CommandSpec spec,
      String name,
      Integer value,
      int otherwise,
      int min,
      int max) {
    int v = value == null ? otherwise : value;
    if (v < min || v > max) {
      throw new CommandLine.ParameterException(
          spec.commandLine(), name + " must be " + min + " to " + max + ", not " + v);
    }
    return v;
  }

  /**
   * One scenario alone, as its subcommand runs it: its own stack, its section printed and, with
   * {@code out}, written as a document with the machine and settings header.
   */
  static int alone(
      CommandLine.Model.CommandSpec spec,
      String name,
      boolean quick,
      Path out,
      Scenario.Runner runner)
      throws Exception {
    PrintWriter o = spec.commandLine().getOut();
    String when = now();
    try (Stack stack = startStack(o)) {
      DatabaseSettings db = checked(stack);
      List<String> section = runner.run(stack, quick, progress(o));
      o.println();
      section.forEach(o::println);
      o.flush();
      if (out != null) {
        List<String> header =
            BenchReport.header(
                when,
                BenchReport.Machine.current(),
                mode(stack),
                databaseSettings(db),
                quick,
                List.of(name));
        Files.writeString(out, BenchReport.document(header, List.of(section)));
        o.println("Written to " + out);
      }
    }
    return 0;
  }
}

package dev.ordinal.cli;

import dev.ordinal.messaging.ConfigurationException;
import dev.ordinal.runtime.LogSetup;
import dev.ordinal.runtime.OrdinalException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** {@code ./ordinal}: one CLI for users of the platform. */
@Command(
    name = "ordinal",
    mixinStandardHelpOptions = true,
    versionProvider = Main.Version.class,
    description = {
      "Effectively-once event flows on PostgreSQL and Kafka: a transactional outbox tailed by an"
          + " embedded Debezium engine, inbox consumers, and a billing reference system.",
      "",
      "Servers: ORDINAL_DB_URL / ORDINAL_DB_USER / ORDINAL_DB_PASSWORD and"
          + " ORDINAL_KAFKA_BOOTSTRAP, or db.url, db.user, db.password and kafka.bootstrap in the"
          + " properties file ORDINAL_CONFIG names; a command refuses when a server it needs is"
          + " not set. ORDINAL_KAFKA_CONFIG (kafka.config) names a file of Kafka client"
          + " properties (security.protocol, sasl.*, ssl.*) for every Kafka client of the"
          + " services; operator commands take --command-config FILE over it. ORDINAL_LOG_TARGET,"
          + " ORDINAL_LOG_FORMAT and ORDINAL_LOG_NAME say where and how a command logs"
          + " (docs/OPERATIONS.md). The lab's commands run on a local stack of their own: './ordinal demo'"
          + " (the whole path, checked), './ordinal up' (every service, for exploring) and"
          + " './ordinal bench'."
    },
    subcommands = {
      OrderServiceCommand.class,
      BillingCommand.class,
      OrdersCommand.class,
      RelayCommand.class,
      AuditCommand.class,
      InvoicesCommand.class,
      LagCommand.class,
      ReplayCommand.class,
      DlqCommand.class,
      TopicsCommand.class,
      MonitorCommand.class,
      ConsoleCommand.class,
      CommandLine.HelpCommand.class
    })
public final class Main extends CommandGroup {
  public static void main(String[] args) {
    // before the first logger exists: logback.xml reads what this decides
    try {
      LogSetup.apply(commandName(args), isService(args), System.getenv(), LogSetup.hasTerminal());
    } catch (LogSetup.BadSettingException e) {
      System.err.println("ordinal: " + e.getMessage());
      System.exit(2);
    }
    ParentWatch.exitWithParentIfAsked();
    // exit explicitly: Kafka's metrics threads would keep the JVM alive for a while
    System.exit(commandLine().execute(args));
  }

  private static final Set<String> HELP = Set.of("-h", "--help", "-V", "--version");

  /** The command's name: the first argument unless it is an option, else {@code ordinal}. */
  static String commandName(String[] args) {
    return args.length > 0 && !args[0].startsWith("-") ? args[0] : "ordinal";
  }

  /**
   * A service command: one that runs a service (its {@code @Command} class is a {@link
   * ServiceCommand}), not one of its subcommands, nor asked for help or the version. Read from the
   * annotations, so no command class is loaded before logging is set up.
   */
  static boolean isService(String[] args) {
    if (args.length == 0 || Arrays.stream(args).anyMatch(HELP::contains)) {
      return false;
    }
    for (Class<?> c : Main.class.getAnnotation(Command.class).subcommands()) {
      Command command = c.getAnnotation(Command.class);
      if (command == null || !command.name().equals(args[0])) {
        continue;
      }
      if (!ServiceCommand.class.isAssignableFrom(c)) {
        return false;
      }
      List<String> subcommands = new ArrayList<>();
      for (Class<?> s : command.subcommands()) {
        subcommands.add(s.getAnnotation(Command.class).name());
      }
      return Arrays.stream(args).skip(1).noneMatch(subcommands::contains);
    }
    return false;
  }

  public static CommandLine commandLine() {
    return commandLine(System.getenv());
  }

  /**
   * The CLI with every option's default read from {@code env} and ORDINAL_CONFIG ({@link
   * Settings}).
   */
  public static CommandLine commandLine(java.util.Map<String, String> env) {
    return configured(new CommandLine(new Main()), env);
  }

  /**
   * {@code cli} as every Ordinal launcher runs it: option defaults from {@code env} and
   * ORDINAL_CONFIG, a file key that is no setting of {@code cli} or of {@code alsoKnown} refused
   * before anything runs, and an {@link OrdinalException} ending the command with one sentence and
   * its exit status.
   */
  public static CommandLine configured(
      CommandLine cli, java.util.Map<String, String> env, CommandLine... alsoKnown) {
    CommandLine[] roots = new CommandLine[alsoKnown.length + 1];
    roots[0] = cli;
    System.arraycopy(alsoKnown, 0, roots, 1, alsoKnown.length);
    try {
      cli.setDefaultValueProvider(new Settings.Defaults(Settings.environment(env)));
    } catch (ConfigurationException e) {
      // reported before a command runs (Settings.checkingFile); the options still parse
    }
    return cli
        // a key of the ORDINAL_CONFIG file that is no setting is refused before anything runs
        .setExecutionStrategy(Settings.checkingFile(env, roots))
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

  /**
   * {@code --version}: {@code ordinal 0.1.0 (commit abc1234, built 2026-12-05T10:00:00Z)}, from the
   * {@code version.properties} the build writes beside this class (the project's version, the git
   * commit it was built from and when); "unknown commit" for a build outside a git checkout.
   */
  static final class Version implements CommandLine.IVersionProvider {
    /** The build's record, beside this class in the jar and in the image. */
    static final String RESOURCE = "version.properties";

    /** What a property holds when the build could not tell (no git checkout). */
    private static final String UNKNOWN = "unknown";

    /** The commit's hash is shown to this many characters, as {@code git log --oneline} does. */
    private static final int ABBREVIATED = 7;

    @Override
    public String[] getVersion() {
      return new String[] {line(read())};
    }

    /** The build's record; empty when there is none (classes compiled by an IDE alone). */
    static java.util.Properties read() {
      java.util.Properties p = new java.util.Properties();
      try (java.io.InputStream in = Main.class.getResourceAsStream(RESOURCE)) {
        if (in != null) {
          p.load(in);
        }
      } catch (java.io.IOException e) {
        // an unreadable record is no record: the line says what is unknown
      }
      return p;
    }

    /** The line {@code --version} prints for the build's record {@code p}. */
    static String line(java.util.Properties p) {
      String version = known(p, "version");
      String commit = known(p, "commit");
      String built = known(p, "built");
      StringBuilder line = new StringBuilder("ordinal ");
      line.append(version == null ? "development build" : version).append(" (");
      if (commit == null) {
        line.append("unknown commit");
      } else {
        line.append("commit ").append(commit, 0, Math.min(ABBREVIATED, commit.length()));
        if ("true".equals(known(p, "dirty"))) {
          line.append(" with uncommitted changes");
        }
      }
      if (built != null) {
        line.append(", built ").append(built);
      }
      return line.append(')').toString();
    }

    /** {@code key}'s value, or null when absent, blank, unknown or a placeholder left unfilled. */
    private static String known(java.util.Properties p, String key) {
      String v = p.getProperty(key, "").strip();
      return v.isEmpty() || v.equals(UNKNOWN) || v.contains("${") ? null : v;
    }
  }
}

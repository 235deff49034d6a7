package dev.ordinal.cli;

import dev.ordinal.messaging.ConfigurationException;
import dev.ordinal.runtime.settings.Setting;
import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import picocli.CommandLine;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * Where every setting of every command is read, in this order (the first that has it wins):
 *
 * <ol>
 *   <li>the command line: {@code ./ordinal billing --concurrency 8};
 *   <li>the environment: {@code ORDINAL_BILLING_CONCURRENCY=8} ({@code ORDINAL_}, the command, the
 *       option, upper case, {@code -} as {@code _});
 *   <li>the properties file named by {@code ORDINAL_CONFIG}: {@code billing.concurrency=8};
 *   <li>the option's default ({@code --help} shows it).
 * </ol>
 *
 * The servers are settings too: {@code ORDINAL_DB_URL} is {@code db.url} in the file, {@code
 * ORDINAL_DB_USER} {@code db.user}, {@code ORDINAL_DB_PASSWORD} {@code db.password}, {@code
 * ORDINAL_KAFKA_BOOTSTRAP} {@code kafka.bootstrap}, {@code ORDINAL_KAFKA_CONFIG} (a file of Kafka
 * client properties) {@code kafka.config}: a key {@code a.b-c} of the file is the variable {@code
 * ORDINAL_A_B_C}, and a variable that is set wins over the file.
 *
 * <p>The file holds settings only: a key that is no command's option ({@code <command>.<option>},
 * {@code <command>.<subcommand>.<option>}) nor a server's is refused before a command runs ({@link
 * #checkFile}). Variables are not checked: the environment holds much else.
 */
public final class Settings {
  public static final String ENV_CONFIG = "ORDINAL_CONFIG";

  /** The servers' keys in the file, beside the commands' options. */
  public static final List<String> SERVER_KEYS =
      List.of("db.url", "db.user", "db.password", "kafka.bootstrap", "kafka.config");

  private Settings() {}

  /**
   * The environment with the properties file's entries under their variable names beneath it.
   *
   * @throws ConfigurationException when {@code ORDINAL_CONFIG} names a file that cannot be read
   */
  public static Map<String, String> environment(Map<String, String> env) {
    Properties p = file(env);
    Map<String, String> merged = new HashMap<>();
    if (p != null) {
      for (String key : p.stringPropertyNames()) {
        merged.put(variable(key), p.getProperty(key).trim());
      }
    }
    merged.putAll(env);
    secretFiles(env, merged);
    return merged;
  }

  /**
   * The secrets that may also be given as the name of a file holding them, in a variable of the
   * secret's name with {@code _FILE} after it ({@code ORDINAL_DB_PASSWORD_FILE=/run/secrets/db}),
   * as container images do: a mounted secret never appears in the process's environment.
   */
  public static final List<String> SECRET_VARIABLES =
      List.of(ServerSettings.ENV_DB_PASSWORD, "ORDINAL_RELAY_PASSWORD", "ORDINAL_ORDERS_TOKEN");

  /**
   * Puts into {@code merged} each secret whose {@code _FILE} variable {@code env} sets, read from
   * that file without its final line break; it wins over the {@code ORDINAL_CONFIG} file.
   *
   * @throws ConfigurationException when the secret's own variable is set too, or the file cannot be
   *     read (the sentence names the variable and the file, never the contents)
   */
  private static void secretFiles(Map<String, String> env, Map<String, String> merged) {
    for (String name : SECRET_VARIABLES) {
      String file = env.get(name + "_FILE");
      if (file == null || file.isBlank()) {
        continue;
      }
      if (env.get(name) != null) {
        throw new ConfigurationException(
            "Both " + name + " and " + name + "_FILE are set; set only one of them.");
      }
      String value;
      try {
        value = Files.readString(Path.of(file.trim()));
      } catch (IOException | RuntimeException e) {
        throw new ConfigurationException(
            name
                + "_FILE names "
                + file.trim()
                + ", which cannot be read ("
                + e.getClass().getSimpleName()
                + ").");
      }
      merged.put(name, value.replaceFirst("\\r?\\n$", ""));
    }
  }

  /**
   * The variable of a properties file key: {@code billing.inbox-retention} → {@code
   * ORDINAL_BILLING_INBOX_RETENTION}.
   */
  public static String variable(String key) {
    return Setting.variableOf(key);
  }

  /** The file {@code env} names, read; null when it names none. */
  private static Properties file(Map<String, String> env) {
    String file = env.get(ENV_CONFIG);
    if (file == null || file.isBlank()) {
      return null;
    }
    Properties p = new Properties();
    try (Reader r = Files.newBufferedReader(Path.of(file))) {
      p.load(r);
    } catch (IOException | RuntimeException e) {
      throw new ConfigurationException(
          ENV_CONFIG + " names " + file + ", which cannot be read (" + e.getMessage() + ").");
    }
    return p;
  }

  /**
   * The key of {@code option} in the file: the command's name under the root, a dot, the option
   * without its dashes ({@code billing.concurrency}, {@code relay.republish.from}); null for the
   * root's options, help and version, and options without a long name.
   */
  static String key(OptionSpec option) {
    if (option.usageHelp() || option.versionHelp() || option.command() == null) {
      return null;
    }
    String name = option.longestName();
    if (!name.startsWith("--")) {
      return null;
    }
    String command = option.command().qualifiedName(".");
    int root = command.indexOf('.');
    if (root < 0) {
      return null; // the root command has no settings of its own
    }
    return command.substring(root + 1) + "." + name.substring(2);
  }

  /** Every key the file may hold for {@code roots}: their commands' options and the servers. */
  public static Set<String> knownKeys(CommandLine... roots) {
    Set<String> keys = new TreeSet<>(SERVER_KEYS);
    for (CommandLine root : roots) {
      Deque<CommandLine> todo = new ArrayDeque<>(List.of(root));
      while (!todo.isEmpty()) {
        CommandSpec c = todo.pop().getCommandSpec();
        for (OptionSpec o : c.options()) {
          String key = key(o);
          if (key != null) {
            keys.add(key);
          }
        }
        todo.addAll(c.subcommands().values());
      }
    }
    return keys;
  }

  /**
   * Refuses a file that {@code env} names when one of its keys is not in {@code known} (compared as
   * their variables are: {@code billing.inbox_retention} is {@code billing.inbox-retention}).
   *
   * @throws ConfigurationException one sentence naming each such key and the known key closest to
   *     it, or saying that the file cannot be read
   */
  public static void checkFile(Map<String, String> env, Set<String> known) {
    Properties p = file(env);
    if (p == null) {
      return;
    }
    Set<String> variables = new TreeSet<>();
    known.forEach(k -> variables.add(variable(k)));
    List<String> unknown = new ArrayList<>();
    for (String key : new TreeSet<>(p.stringPropertyNames())) {
      if (!variables.contains(variable(key))) {
        String closest = closest(key, known);
        unknown.add(key + (closest == null ? "" : " (did you mean " + closest + "?)"));
      }
    }
    if (!unknown.isEmpty()) {
      throw new ConfigurationException(
          env.get(ENV_CONFIG)
              + " ("
              + ENV_CONFIG
              + ") has "
              + (unknown.size() == 1
                  ? "a key that is not a setting: "
                  : "keys that are not settings: ")
              + String.join(", ", unknown)
              + "; nothing was started.");
    }
  }

  /** The known key nearest to {@code key}, when it is near enough to be a slip; null otherwise. */
  static String closest(String key, Set<String> known) {
    String best = null;
    int bestDistance = Integer.MAX_VALUE;
    for (String k : known) {
      int d = distance(key.toLowerCase(java.util.Locale.ROOT), k);
      if (d < bestDistance) {
        best = k;
        bestDistance = d;
      }
    }
    return bestDistance <= Math.max(2, key.length() / 5) ? best : null;
  }

  /** Levenshtein distance: the edits that turn {@code a} into {@code b}. */
  private static int distance(String a, String b) {
    int[] prev = new int[b.length() + 1];
    int[] cur = new int[b.length() + 1];
    for (int j = 0; j <= b.length(); j++) {
      prev[j] = j;
    }
    for (int i = 1; i <= a.length(); i++) {
      cur[0] = i;
      for (int j = 1; j <= b.length(); j++) {
        int same = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
        cur[j] = Math.min(Math.min(cur[j - 1] + 1, prev[j] + 1), prev[j - 1] + same);
      }
      int[] t = prev;
      prev = cur;
      cur = t;
    }
    return prev[b.length()];
  }

  /**
   * Runs the command {@code cli} parsed once {@code env}'s file has passed {@link #checkFile}
   * against every option of {@code roots}; help is shown whatever the file holds. A refused file is
   * one sentence on stderr and exit status 2, before anything runs.
   */
  public static CommandLine.IExecutionStrategy checkingFile(
      Map<String, String> env, CommandLine... roots) {
    return parsed -> {
      Integer help = CommandLine.executeHelpRequest(parsed);
      if (help != null) {
        return help;
      }
      List<CommandLine> chosen = parsed.asCommandLineList();
      CommandLine last = chosen.get(chosen.size() - 1);
      if (!(last.getCommand() instanceof CommandLine.HelpCommand)) {
        try {
          checkFile(env, knownKeys(roots));
        } catch (ConfigurationException e) {
          last.getErr().println(last.getColorScheme().errorText("ordinal: " + e.getMessage()));
          last.getErr().flush();
          return e.exitStatus();
        }
      }
      return new CommandLine.RunLast().execute(parsed);
    };
  }

  /**
   * Picocli's defaults from {@link #environment}: used for every option not on the command line.
   */
  public static final class Defaults implements CommandLine.IDefaultValueProvider {
    private final Map<String, String> env;

    public Defaults(Map<String, String> env) {
      this.env = env;
    }

    @Override
    public String defaultValue(ArgSpec arg) {
      if (!(arg instanceof OptionSpec option)) {
        return null;
      }
      String key = key(option);
      return key == null ? null : env.get(variable(key));
    }
  }
}

package dev.ordinal.cli;

import dev.ordinal.messaging.ConfigurationException;
import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import picocli.CommandLine;
import picocli.CommandLine.Model.ArgSpec;
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
 * ORDINAL_KAFKA_BOOTSTRAP} {@code kafka.bootstrap}: a key {@code a.b-c} of the file is the variable
 * {@code ORDINAL_A_B_C}, and a variable that is set wins over the file.
 */
public final class Settings {
  public static final String ENV_CONFIG = "ORDINAL_CONFIG";
  private static final String PREFIX = "ORDINAL_";

  private Settings() {}

  /**
   * The environment with the properties file's entries under their variable names beneath it.
   *
   * @throws ConfigurationException when {@code ORDINAL_CONFIG} names a file that cannot be read
   */
  public static Map<String, String> environment(Map<String, String> env) {
    String file = env.get(ENV_CONFIG);
    if (file == null || file.isBlank()) {
      return env;
    }
    Properties p = new Properties();
    try (Reader r = Files.newBufferedReader(Path.of(file))) {
      p.load(r);
    } catch (IOException | RuntimeException e) {
      throw new ConfigurationException(
          ENV_CONFIG + " names " + file + ", which cannot be read (" + e.getMessage() + ").");
    }
    Map<String, String> merged = new HashMap<>();
    for (String key : p.stringPropertyNames()) {
      merged.put(variable(key), p.getProperty(key).trim());
    }
    merged.putAll(env);
    return merged;
  }

  /**
   * The variable of a properties file key: {@code billing.inbox-retention} → {@code
   * ORDINAL_BILLING_INBOX_RETENTION}.
   */
  public static String variable(String key) {
    return PREFIX + key.toUpperCase(Locale.ROOT).replace('.', '_').replace('-', '_');
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
      if (!(arg instanceof OptionSpec option) || option.usageHelp() || option.versionHelp()) {
        return null;
      }
      String name = option.longestName();
      if (!name.startsWith("--") || arg.command() == null) {
        return null;
      }
      String command = arg.command().qualifiedName(".");
      int root = command.indexOf('.');
      if (root < 0) {
        return null; // the root command has no settings of its own
      }
      return env.get(variable(command.substring(root + 1) + "." + name.substring(2)));
    }
  }
}

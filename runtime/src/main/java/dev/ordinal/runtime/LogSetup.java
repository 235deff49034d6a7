package dev.ordinal.runtime;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Where a process's log goes and how it is written, decided once from its command and the
 * environment before the first logger exists, and handed to {@code logback.xml} as system
 * properties ({@code ordinal.log.*}). The command line says which command runs and whether it runs
 * a service; the launcher reads that and calls {@link #apply}.
 *
 * <ul>
 *   <li>{@code ORDINAL_LOG_TARGET}: {@code console} (every line at INFO and above on the console
 *       stream), {@code file} (the log file, and errors alone on standard error) or {@code both}.
 *       The console stream is standard output for the service commands (order-service, relay,
 *       billing, monitor) and standard error for every other command, whose standard output is its
 *       result. Unset: {@code console} for a service command without a terminal (a container, a
 *       pipe), {@code file} otherwise.
 *   <li>{@code ORDINAL_LOG_FORMAT}: {@code text} (the default) or {@code json}, one object a line.
 *   <li>{@code ORDINAL_LOG_NAME}: the file's name without {@code .log}, used as it is (processes
 *       given one name share its file). Unset: the command's name, or {@code <command>-2}, {@code
 *       -3}, ... while another running process holds that one, so no two processes share a file.
 * </ul>
 */
public final class LogSetup {
  public static final String TARGET_ENV = "ORDINAL_LOG_TARGET";
  public static final String FORMAT_ENV = "ORDINAL_LOG_FORMAT";
  public static final String NAME_ENV = "ORDINAL_LOG_NAME";

  /** The system properties logback.xml reads. */
  public static final String TARGET_PROPERTY = "ordinal.log.target";

  public static final String CONSOLE_PROPERTY = "ordinal.log.console";
  public static final String FORMAT_PROPERTY = "ordinal.log.format";
  public static final String DIR_PROPERTY = "ordinal.log.dir";
  public static final String NAME_PROPERTY = "ordinal.log.name";
  public static final String SERVICE_PROPERTY = "ordinal.log.service";

  /** How many processes may run one command on a host, each with a file of its own. */
  public static final int MAX_FILES_PER_COMMAND = 100;

  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,99}");

  /** The locks that keep this process's file its own, held until the JVM exits. */
  private static final List<FileLock> HELD = new ArrayList<>();

  public enum Target {
    CONSOLE,
    FILE,
    BOTH
  }

  public enum Format {
    TEXT,
    JSON
  }

  /**
   * What a command logs where.
   *
   * @param command the command's name, or {@code ordinal} when none is given
   * @param service true for a command that runs a service (its stdout carries no result)
   * @param name the log file's name without {@code .log}, before a free one is claimed
   * @param claimName true when no {@code ORDINAL_LOG_NAME} was given: {@link #apply} claims a name
   *     no other running process writes
   */
  public record Decision(
      String command,
      boolean service,
      Target target,
      Format format,
      String name,
      boolean claimName) {
    /** {@code System.out} for a service command, {@code System.err} for any other. */
    public String consoleStream() {
      return service ? "System.out" : "System.err";
    }

    public boolean writesFile() {
      return target != Target.CONSOLE;
    }
  }

  /** A setting of the log that has no meaning; the message is one sentence naming it. */
  public static final class BadSettingException extends RuntimeException {
    public BadSettingException(String message) {
      super(message);
    }
  }

  private LogSetup() {}

  /**
   * Decides, without touching anything.
   *
   * @param command the command's name ({@code ordinal} when none is given)
   * @param service true for a command that runs a service (its stdout carries no result)
   * @param terminal whether the process has a terminal ({@code System.console() != null})
   * @throws BadSettingException for a target, format or name that is none of the accepted ones
   */
  public static Decision decide(
      String command, boolean service, Map<String, String> env, boolean terminal) {
    Target target =
        parse(
            env,
            TARGET_ENV,
            Target.class,
            service && !terminal ? Target.CONSOLE : Target.FILE,
            "console, file or both");
    Format format = parse(env, FORMAT_ENV, Format.class, Format.TEXT, "text or json");
    String given = env.get(NAME_ENV);
    if (given == null || given.isBlank()) {
      return new Decision(command, service, target, format, safeName(command), true);
    }
    if (!NAME.matcher(given).matches()) {
      throw new BadSettingException(
          NAME_ENV
              + " must be a file name of letters, digits, '.', '_' and '-', not '"
              + given
              + "'.");
    }
    return new Decision(command, service, target, format, given, false);
  }

  /**
   * Decides and sets the system properties logback.xml reads; claims the file's name first when the
   * log goes to a file.
   *
   * @throws BadSettingException as {@link #decide}
   */
  public static Decision apply(
      String command, boolean service, Map<String, String> env, boolean terminal) {
    Decision d = decide(command, service, env, terminal);
    Path dir = logDirectory(env);
    String name = d.writesFile() && d.claimName() ? claim(dir, d.name()) : d.name();
    System.setProperty(TARGET_PROPERTY, d.target().name().toLowerCase(Locale.ROOT));
    System.setProperty(CONSOLE_PROPERTY, d.consoleStream());
    System.setProperty(FORMAT_PROPERTY, d.format().name().toLowerCase(Locale.ROOT));
    System.setProperty(DIR_PROPERTY, dir.toString());
    System.setProperty(NAME_PROPERTY, name);
    System.setProperty(SERVICE_PROPERTY, d.command());
    return d;
  }

  /**
   * Whether this process has a terminal: {@code System.console()}, and on Java 22 and later its
   * {@code isTerminal()} (there the console exists with redirected streams too).
   */
  public static boolean hasTerminal() {
    java.io.Console console = System.console();
    if (console == null) {
      return false;
    }
    try {
      return (Boolean) java.io.Console.class.getMethod("isTerminal").invoke(console);
    } catch (ReflectiveOperationException e) {
      return true; // before Java 22 a console exists only on a terminal
    }
  }

  /** True when this process's log lines go to standard output ({@link #apply} said so). */
  public static boolean logsToStdout() {
    String target = System.getProperty(TARGET_PROPERTY);
    return "System.out".equals(System.getProperty(CONSOLE_PROPERTY))
        && ("console".equals(target) || "both".equals(target));
  }

  /** {@code $ORDINAL_HOME/logs}, {@code ~/.ordinal/logs} without it. */
  public static Path logDirectory(Map<String, String> env) {
    String home = env.get("ORDINAL_HOME");
    return (home == null || home.isBlank()
            ? Path.of(System.getProperty("user.home"), ".ordinal")
            : Path.of(home))
        .resolve("logs");
  }

  /**
   * The first of {@code base}, {@code base-2}, {@code base-3}, ... whose lock file ({@code
   * <name>.lock} in {@code dir}) no running process holds, locked for the rest of this process. A
   * restart finds its old name free again and appends to its file. When the directory cannot be
   * written, {@code base} (the file appender then says why).
   */
  public static synchronized String claim(Path dir, String base) {
    try {
      Files.createDirectories(dir);
      for (int i = 1; i <= MAX_FILES_PER_COMMAND; i++) {
        String name = i == 1 ? base : base + "-" + i;
        FileChannel channel =
            FileChannel.open(
                dir.resolve(name + ".lock"), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
        FileLock lock;
        try {
          lock = channel.tryLock();
        } catch (OverlappingFileLockException e) {
          lock = null; // this JVM holds it already
        }
        if (lock != null) {
          HELD.add(lock);
          return name;
        }
        channel.close();
      }
    } catch (IOException e) {
      // the file appender reports the directory it cannot write
    }
    return base + "-" + ProcessHandle.current().pid();
  }

  private static String safeName(String command) {
    return NAME.matcher(command).matches() ? command : "ordinal";
  }

  private static <E extends Enum<E>> E parse(
      Map<String, String> env, String variable, Class<E> type, E otherwise, String accepted) {
    String value = env.get(variable);
    if (value == null || value.isBlank()) {
      return otherwise;
    }
    try {
      return Enum.valueOf(type, value.strip().toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw new BadSettingException(
          variable + " must be " + accepted + ", not '" + value.strip() + "'.");
    }
  }
}

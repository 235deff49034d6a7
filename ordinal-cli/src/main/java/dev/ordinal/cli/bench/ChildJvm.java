package dev.ordinal.cli.bench;

import dev.ordinal.messaging.DatabaseSettings;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The bench's child processes: a JVM on the bench's own classpath running another main class, its
 * first arguments the database URL (without the password) and user, the password by the environment
 * (never on a command line others can read), its log in a file of its own ({@code
 * <ORDINAL_HOME>/logs/<logName>.log}, not the bench's), standard error merged into standard output.
 */
final class ChildJvm {
  static final String PASSWORD_ENV = "ORDINAL_BENCH_DB_PASSWORD";

  private ChildJvm() {}

  /**
   * @param cores pins the child ({@code taskset -c}) when not null
   * @param jvmOptions options of the child's JVM, before the classpath
   * @param args the main class's arguments after the database URL and user
   */
  static ProcessBuilder builder(
      Class<?> main,
      String cores,
      List<String> jvmOptions,
      DatabaseSettings db,
      String logName,
      List<String> args) {
    List<String> cmd = new ArrayList<>();
    if (cores != null) {
      cmd.addAll(List.of("taskset", "-c", cores));
    }
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.add("-Xmx512m");
    cmd.addAll(jvmOptions);
    cmd.add("-cp");
    cmd.add(System.getProperty("java.class.path"));
    cmd.add(main.getName());
    cmd.add(db.urlWithoutPassword());
    cmd.add(db.user());
    cmd.addAll(args);
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
    pb.environment().put(PASSWORD_ENV, db.effectivePassword());
    pb.environment().put("ORDINAL_LOG_NAME", logName);
    return pb;
  }

  /** The password the parent put in the child's environment. */
  static String password() {
    return System.getenv(PASSWORD_ENV);
  }

  /** An executable of that name on the PATH ({@code wrk}, {@code taskset}), if installed. */
  static Optional<Path> onPath(String name) {
    String path = System.getenv("PATH");
    if (path == null) {
      return Optional.empty();
    }
    for (String dir : path.split(File.pathSeparator)) {
      Path p = Path.of(dir, name);
      if (Files.isExecutable(p)) {
        return Optional.of(p);
      }
    }
    return Optional.empty();
  }
}

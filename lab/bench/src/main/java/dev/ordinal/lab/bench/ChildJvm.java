package dev.ordinal.lab.bench;

import dev.ordinal.messaging.db.DatabaseSettings;
import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

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

  /**
   * Reads {@code p}'s output line by line (fields split on spaces) until {@code onLine} gives a
   * result, then waits up to 30 s for the child to exit and returns it; the child is killed if it
   * is still running after that or when reading fails.
   *
   * @throws IOException naming {@code what} with the child's last 40 lines when it ends without a
   *     result
   */
  static <T> T readUntilDone(Process p, String what, Function<String[], Optional<T>> onLine)
      throws IOException, InterruptedException {
    List<String> tail = new ArrayList<>();
    try (BufferedReader out =
        new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
      String line;
      while ((line = out.readLine()) != null) {
        Optional<T> done = onLine.apply(line.split(" "));
        if (done.isPresent()) {
          p.waitFor(30, TimeUnit.SECONDS);
          return done.get();
        }
        tail.add(line);
        if (tail.size() > 40) {
          tail.remove(0);
        }
      }
    } finally {
      if (p.isAlive()) {
        p.destroyForcibly();
      }
    }
    throw new IOException(what + " ended without DONE:\n" + String.join("\n", tail));
  }
}

package dev.ordinal.testkit;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** The command line of a new JVM that runs a class's {@code main} on this test JVM's class path. */
public final class JavaCommand {
  private JavaCommand() {}

  /**
   * {@code java <jvmOptions> -cp <this class path> <main> <args>}, with the java of this JVM's
   * installation.
   */
  public static List<String> of(List<String> jvmOptions, Class<?> main, String... args) {
    return of(jvmOptions, main.getName(), args);
  }

  /** The same for the main class named {@code main} (one this module does not depend on). */
  public static List<String> of(List<String> jvmOptions, String main, String... args) {
    return onClassPath(jvmOptions, System.getProperty("java.class.path"), main, args);
  }

  /** The same on the class path {@code classPath}. */
  public static List<String> onClassPath(
      List<String> jvmOptions, String classPath, String main, String... args) {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(jvmOptions);
    command.addAll(List.of("-cp", classPath, main));
    command.addAll(List.of(args));
    return command;
  }
}

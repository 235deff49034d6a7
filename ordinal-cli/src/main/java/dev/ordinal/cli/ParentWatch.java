package dev.ordinal.cli;

import java.io.IOException;

/**
 * A command started as the child of another process (the lab's demo runs each service in a JVM of
 * its own) exits when its parent dies, however it dies: with the system property {@value
 * #EXIT_WITH_PARENT} set, the JVM exits (running its shutdown hooks, so the command stops cleanly)
 * once standard input reaches end of file, which happens when the parent's end of the pipe closes.
 */
public final class ParentWatch {
  /** The system property that asks for it. */
  public static final String EXIT_WITH_PARENT = "ordinal.exitWithParent";

  private ParentWatch() {}

  static void exitWithParentIfAsked() {
    if (!Boolean.getBoolean(EXIT_WITH_PARENT)) {
      return;
    }
    Thread watch =
        new Thread(
            () -> {
              try {
                while (System.in.read() >= 0) {
                  // nothing is sent; only the end of the stream matters
                }
              } catch (IOException e) {
                // a broken pipe means the same
              }
              System.exit(0);
            },
            "ordinal-parent-watch");
    watch.setDaemon(true);
    watch.start();
  }
}

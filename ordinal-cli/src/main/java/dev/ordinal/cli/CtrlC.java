package dev.ordinal.cli;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Ctrl-C (SIGINT/SIGTERM) for a long-running command. The JVM exits as soon as its shutdown hooks
 * return, so the hook holds it — for at most {@code hold} — until the command has closed what it
 * started ({@link #close()}); then the process exits with status 0 (a stop that was asked for is
 * not a failure). One that did not close in time exits with the signal's status (130, 143). A
 * second Ctrl-C cannot make it hang longer than that.
 */
public final class CtrlC implements AutoCloseable {
  private final CountDownLatch pressed = new CountDownLatch(1);
  private final CountDownLatch cleanedUp = new CountDownLatch(1);

  public CtrlC(String name, Duration hold) {
    this(name, hold, () -> {});
  }

  /** As {@link #CtrlC(String, Duration)}, also running {@code onPress} when Ctrl-C comes. */
  public CtrlC(String name, Duration hold, Runnable onPress) {
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  if (cleanedUp.getCount() == 0) {
                    return; // the command had ended: the JVM exits with its status
                  }
                  pressed.countDown();
                  onPress.run();
                  try {
                    if (cleanedUp.await(hold.toMillis(), TimeUnit.MILLISECONDS)) {
                      // a clean stop on request: exit status 0, not the signal's 128+n
                      Runtime.getRuntime().halt(0);
                    }
                  } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                  }
                },
                name + "-stop"));
  }

  /** Waits up to {@code timeout}; true once Ctrl-C was pressed. */
  public boolean await(Duration timeout) throws InterruptedException {
    return pressed.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
  }

  /** Waits until Ctrl-C. */
  public void await() throws InterruptedException {
    pressed.await();
  }

  /** Everything is closed: the JVM may exit. */
  @Override
  public void close() {
    cleanedUp.countDown();
  }
}

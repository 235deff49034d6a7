package dev.ordinal.lab.demo;

import java.io.PrintWriter;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * The demo's output while it runs: steps ("Starting ... ok (detail, 812 ms)"), events of the
 * faults, and the live line, rewritten in place on a terminal and printed every 5 s otherwise.
 * Ctrl-C ({@link #interrupt()}) ends every wait at once.
 */
final class Console {
  private final PrintWriter out;
  private final boolean tty = System.console() != null;
  private final CountDownLatch interrupted = new CountDownLatch(1);
  private volatile boolean stepOpen;

  Console(PrintWriter out) {
    this.out = out;
  }

  PrintWriter out() {
    return out;
  }

  /** How often the live line is shown while driving. */
  Duration progressEvery() {
    return Duration.ofSeconds(tty ? 1 : 5);
  }

  /** Ctrl-C: every wait ends. */
  void interrupt() {
    interrupted.countDown();
  }

  boolean interrupted() {
    return interrupted.getCount() == 0;
  }

  /** Waits {@code d}; true when Ctrl-C ended the wait. */
  boolean await(Duration d) throws InterruptedException {
    return interrupted.await(d.toNanos(), TimeUnit.NANOSECONDS);
  }

  /** Throws when Ctrl-C came. */
  void checkInterrupted() throws InterruptedException {
    if (interrupted()) {
      throw new InterruptedException("Ctrl-C");
    }
  }

  void step(String what) {
    out.print(what + " ... ");
    out.flush();
    stepOpen = true;
  }

  void done(String detail, long startNanos) {
    stepOpen = false;
    out.printf("ok (%s, %d ms)%n", detail, (System.nanoTime() - startNanos) / 1_000_000);
    out.flush();
  }

  /** Ends a step left open by a failure. */
  void failed() {
    if (stepOpen) {
      stepOpen = false;
      out.println("failed");
      out.flush();
    }
  }

  /** One line of what happened, above the live line. */
  synchronized void event(String line) {
    if (tty) {
      out.print("\r\033[K");
    }
    out.println("  " + line);
    out.flush();
  }

  /** The live line; {@code last} ends it on a terminal. */
  synchronized void progress(Supplier<String> line, boolean last) {
    String text;
    try {
      text = line.get();
    } catch (RuntimeException e) {
      // a server is away (a fault of the run): the line waits for it
      text = "(progress unknown while a server is away: " + e.getClass().getSimpleName() + ")";
    }
    if (tty) {
      out.print("\r\033[K  " + text);
      if (last) {
        out.println();
      }
    } else {
      out.println("  " + text);
    }
    out.flush();
  }

  /** Polls {@code condition} until it holds or {@code timeout} passes, showing progress. */
  boolean waitFor(Duration timeout, BooleanSupplier condition, Supplier<String> line)
      throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    long nextLine = 0;
    while (true) {
      boolean holds = condition.getAsBoolean();
      long now = System.nanoTime();
      if (tty) {
        out.print("\r\033[K  " + line.get());
        out.flush();
      } else if (holds || now >= nextLine || now >= deadline) {
        out.println("  " + line.get());
        out.flush();
        nextLine = now + TimeUnit.SECONDS.toNanos(5);
      }
      if (holds || now >= deadline) {
        if (tty) {
          out.println();
        }
        return holds;
      }
      if (await(Duration.ofMillis(300))) {
        throw new InterruptedException("Ctrl-C");
      }
    }
  }

  /** {@code 30 s}, or {@code 500 ms} when not whole seconds. */
  static String human(Duration d) {
    return d.toMillis() % 1000 == 0 ? d.toSeconds() + " s" : d.toMillis() + " ms";
  }
}

package dev.ordinal.billing;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.function.Consumer;

/** Work on a batch of claimed rows, one task a row, on a pool the caller owns. */
final class Parallel {
  private Parallel() {}

  /**
   * Runs {@code work} for each of {@code items} on {@code pool} and waits for all of them, in
   * order; the first that failed ends the wait with its {@link ExecutionException}.
   */
  static <T> void each(ExecutorService pool, Iterable<T> items, Consumer<T> work)
      throws InterruptedException, ExecutionException {
    List<Future<?>> running = new ArrayList<>();
    for (T item : items) {
      running.add(pool.submit(() -> work.accept(item)));
    }
    for (Future<?> f : running) {
      f.get();
    }
  }
}

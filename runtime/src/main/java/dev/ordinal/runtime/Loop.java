package dev.ordinal.runtime;

import java.time.Duration;

/**
 * The body of a background loop run by a {@link Supervisor}: it works until {@link
 * LoopContext#running()} turns false. When it throws, the supervisor logs the exception once with
 * its cause, waits a backoff (exponential, with jitter) and runs the body again, forever; when it
 * returns while the supervisor still wants it running, that counts as a failure too. A body
 * therefore keeps no state across runs that a failure could leave half-done: it opens its clients
 * at the top and closes them in a {@code finally}.
 */
@FunctionalInterface
public interface Loop {

  /** Works until {@code ctx.running()} is false; any exception restarts it after a backoff. */
  void run(LoopContext ctx) throws Exception;

  /**
   * A job run now and then every {@code interval} after the end of each run (retention, audits,
   * monitors). A run that throws is a failure of the loop: logged, counted, retried after the
   * backoff; a run that returns marks the loop healthy.
   */
  static Loop every(Duration interval, Job job) {
    return ctx -> {
      while (ctx.running()) {
        job.run();
        ctx.healthy();
        ctx.await(interval);
      }
    };
  }

  /** One run of a periodic job. */
  @FunctionalInterface
  interface Job {
    void run() throws Exception;
  }
}

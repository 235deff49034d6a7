package dev.ordinal.messaging.inbox.internal;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;

/**
 * An inbox consumer's meters, tagged {@code consumer}: {@code ordinal.inbox.messages{outcome}},
 * {@code ordinal.inbox.rewound}, {@code ordinal.inbox.commits.refused} and the phase timer {@code
 * ordinal.inbox.batch{phase}}.
 */
public final class InboxMetrics {
  final Counter applied;
  final Counter duplicates;
  final Counter deadLettered;
  final Counter retried;
  final Counter rewound;
  final Counter commitsRefused;
  final Timer applyTime;
  final Timer positionsTime;
  final Timer commitTime;

  public InboxMetrics(MeterRegistry registry, String consumer) {
    this.applied = messages(registry, consumer, "applied");
    this.duplicates = messages(registry, consumer, "duplicate");
    this.deadLettered = messages(registry, consumer, "dead_lettered");
    this.retried = messages(registry, consumer, "retried");
    this.rewound =
        Counter.builder("ordinal.inbox.rewound")
            .description(
                "Records read again on assignment because the database stood before the committed"
                    + " offset")
            .tag("consumer", consumer)
            .register(registry);
    this.commitsRefused =
        Counter.builder("ordinal.inbox.commits.refused")
            .description(
                "Offset commits the group refused because it had rebalanced without this member")
            .tag("consumer", consumer)
            .register(registry);
    this.applyTime = phase(registry, consumer, "apply");
    this.positionsTime = phase(registry, consumer, "positions");
    this.commitTime = phase(registry, consumer, "commit");
  }

  public long applied() {
    return (long) applied.count();
  }

  public long duplicates() {
    return (long) duplicates.count();
  }

  public long deadLettered() {
    return (long) deadLettered.count();
  }

  public long retried() {
    return (long) retried.count();
  }

  public long rewound() {
    return (long) rewound.count();
  }

  public long commitsRefused() {
    return (long) commitsRefused.count();
  }

  private static Counter messages(MeterRegistry registry, String consumer, String outcome) {
    return Counter.builder("ordinal.inbox.messages")
        .description("Messages seen by an inbox consumer, by outcome")
        .tag("consumer", consumer)
        .tag("outcome", outcome)
        .register(registry);
  }

  /**
   * Where a poll's batch spends its time: applying its records (the transactions), storing the
   * positions in the database, committing the offsets to Kafka. The last two are the loop's own
   * work between batches, while the workers wait.
   */
  private static Timer phase(MeterRegistry registry, String consumer, String phase) {
    return Timer.builder("ordinal.inbox.batch")
        .description(
            "Time of each phase of a poll's batch: apply (the records' transactions), positions"
                + " (stored in the database), commit (offsets to Kafka)")
        .tag("consumer", consumer)
        .tag("phase", phase)
        .register(registry);
  }
}

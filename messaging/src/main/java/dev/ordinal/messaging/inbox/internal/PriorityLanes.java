package dev.ordinal.messaging.inbox.internal;

import java.time.Duration;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * When the other topics may run while priority topics have records waiting (the Kafka port of a
 * priority queue): the decision only, on an injected clock; {@link PollLoop} pauses, resumes and
 * gives records back accordingly.
 *
 * <p>Whether records wait on the priority lane is asked (the probe) on every poll that returned
 * priority records or while the lane holds the others back, else every {@code probeInterval}. While
 * records wait, the others are held back, but for at most {@code maxPause}: then the others get one
 * poll's records (their turn ends when some of theirs came, or after another {@code maxPause}), and
 * the priority lane is served again. The scheduled work is never starved.
 *
 * <p>Not thread-safe: one poll loop decides.
 */
final class PriorityLanes {
  /** What the probe found on the priority topics' partitions. */
  enum Probe {
    /** Records wait beyond this consumer's positions. */
    WAITING,
    /** Nothing waits. */
    NONE_WAITING,
    /** The broker did not answer in time: the lanes stay as they are. */
    NO_ANSWER
  }

  /** What to do with one poll's records. */
  enum Decision {
    /** Apply everything polled; the other topics resume (except partitions backing off). */
    ALL,
    /** The other topics' turn: apply everything polled; pause nothing, resume nothing. */
    OTHERS_TURN,
    /** Apply the priority records only: pause the other topics and give their records back. */
    PRIORITY_ONLY
  }

  private final long maxPause;
  private final long probeInterval;
  private final LongSupplier nanoTime;

  private boolean probed;
  private long nextProbe;
  private boolean waiting;
  private boolean holding;
  private long holdingSince;
  private boolean othersTurn;
  private long othersTurnSince;

  /**
   * @param maxPause the longest the other topics are held back while priority records keep coming
   * @param probeInterval how often the probe runs when nothing else calls for it
   * @param nanoTime the monotonic clock, as {@link System#nanoTime}
   */
  PriorityLanes(Duration maxPause, Duration probeInterval, LongSupplier nanoTime) {
    this.maxPause = maxPause.toNanos();
    this.probeInterval = probeInterval.toNanos();
    this.nanoTime = nanoTime;
  }

  /**
   * Decides for one poll.
   *
   * @param priorityInHand the poll returned records of a priority topic
   * @param othersInHand the poll returned records of another topic
   * @param probe asks the broker whether records wait on the priority topics; called only when due
   */
  Decision decide(boolean priorityInHand, boolean othersInHand, Supplier<Probe> probe) {
    long now = nanoTime.getAsLong();
    if (othersTurn) {
      // this poll's records are applied whatever waits; the turn ends once some of the others'
      // came (or it has lasted as long as a pause may)
      if (othersInHand || now - othersTurnSince >= maxPause) {
        othersTurn = false;
        holding = false;
        waiting = false;
      }
      return Decision.OTHERS_TURN;
    }
    if (priorityInHand || waiting || !probed || now - nextProbe >= 0) {
      probed = true;
      nextProbe = now + probeInterval;
      Probe found = probe.get();
      if (found != Probe.NO_ANSWER) {
        waiting = found == Probe.WAITING;
      }
    }
    if (!waiting) {
      holding = false;
      return Decision.ALL;
    }
    if (!holding) {
      holding = true;
      holdingSince = now;
    } else if (now - holdingSince >= maxPause) {
      othersTurn = true;
      othersTurnSince = now;
      return Decision.ALL;
    }
    return Decision.PRIORITY_ONLY;
  }
}

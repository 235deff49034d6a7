package dev.ordinal.monitor.internal;

import dev.ordinal.monitor.Alert;
import java.time.Duration;
import org.apache.kafka.streams.processor.PunctuationType;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * A checker of events keyed by what it watches (an order, a series), with two state stores, the
 * state of each key and an index beside it, and a punctuator that runs every {@code interval} of
 * wall-clock time to alert on what has waited longer than {@code limit}.
 *
 * @param <S> the state kept per key
 * @param <L> the values of the index
 */
abstract class DeadlineChecker<S, L> implements Processor<String, Event, String, Alert> {
  private final String stateStoreName;
  private final String indexStoreName;
  private final Duration limit;
  private final Duration interval;
  private ProcessorContext<String, Alert> context;
  private KeyValueStore<String, S> states;
  private KeyValueStore<String, L> index;

  DeadlineChecker(String stateStoreName, String indexStoreName, Duration limit, Duration interval) {
    this.stateStoreName = stateStoreName;
    this.indexStoreName = indexStoreName;
    this.limit = limit;
    this.interval = interval;
  }

  @Override
  public final void init(ProcessorContext<String, Alert> context) {
    this.context = context;
    this.states = context.getStateStore(stateStoreName);
    this.index = context.getStateStore(indexStoreName);
    context.schedule(interval, PunctuationType.WALL_CLOCK_TIME, this::checkDeadlines);
  }

  @Override
  public final void process(Record<String, Event> record) {
    check(record.key(), record.value(), record.timestamp(), context.currentSystemTimeMs());
  }

  /**
   * Checks {@code event} of {@code key}, its record's timestamp {@code recordTime}, seen at
   * wall-clock time {@code now}.
   */
  abstract void check(String key, Event event, long recordTime, long now);

  /** Alerts on what has waited longer than {@link #limit} at wall-clock time {@code now}. */
  abstract void checkDeadlines(long now);

  final ProcessorContext<String, Alert> context() {
    return context;
  }

  /** The state of each key. */
  final KeyValueStore<String, S> states() {
    return states;
  }

  /** The second store, an index beside the states (orders waiting, numbers' holders). */
  final KeyValueStore<String, L> index() {
    return index;
  }

  /** How long something may wait before {@link #checkDeadlines} alerts on it. */
  final Duration limit() {
    return limit;
  }
}

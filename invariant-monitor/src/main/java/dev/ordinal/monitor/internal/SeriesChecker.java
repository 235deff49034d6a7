package dev.ordinal.monitor.internal;

import dev.ordinal.monitor.Alert;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.processor.PunctuationType;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * Per-series invariants on {@code InvoiceIssued} events keyed by series: a number is issued for one
 * invoice only, and no number below the highest stays missing longer than the grace. Which invoice
 * holds a number is kept per {@code series/number}; the missing numbers as ranges.
 */
public final class SeriesChecker implements Processor<String, Event, String, Alert> {
  private final String seriesStoreName;
  private final String numberStoreName;
  private final Duration grace;
  private final Duration interval;
  private ProcessorContext<String, Alert> context;
  private KeyValueStore<String, SeriesState> seriesStore;
  private KeyValueStore<String, NumberState> numbers;

  public SeriesChecker(
      String seriesStoreName, String numberStoreName, Duration grace, Duration interval) {
    this.seriesStoreName = seriesStoreName;
    this.numberStoreName = numberStoreName;
    this.grace = grace;
    this.interval = interval;
  }

  @Override
  public void init(ProcessorContext<String, Alert> context) {
    this.context = context;
    this.seriesStore = context.getStateStore(seriesStoreName);
    this.numbers = context.getStateStore(numberStoreName);
    context.schedule(interval, PunctuationType.WALL_CLOCK_TIME, this::checkGaps);
  }

  @Override
  public void process(Record<String, Event> record) {
    Event event = record.value();
    String series = record.key();
    Long number = event.number();
    if (series == null || number == null || number < 1) {
      return;
    }
    long now = context.currentSystemTimeMs();
    String numberKey = series + "/" + number;
    NumberState holder = numbers.get(numberKey);
    if (holder != null) {
      if (!Objects.equals(holder.invoiceId(), event.invoiceId()) && !holder.duplicateAlerted()) {
        numbers.put(numberKey, new NumberState(holder.invoiceId(), true));
        List<String> ids = new ArrayList<>();
        ids.add(holder.invoiceId());
        ids.add(event.invoiceId());
        context.forward(
            new Record<>(
                series, Alert.duplicateNumber(series, number, ids, now), record.timestamp()));
      }
      return;
    }
    numbers.put(numberKey, new NumberState(event.invoiceId(), false));
    SeriesState state = seriesStore.get(series);
    seriesStore.put(series, issued(state == null ? SeriesState.empty() : state, number, now));
  }

  private static SeriesState issued(SeriesState state, long number, long now) {
    List<SeriesState.Gap> gaps = new ArrayList<>();
    if (number > state.highest()) {
      gaps.addAll(state.gaps());
      if (number > state.highest() + 1) {
        gaps.add(new SeriesState.Gap(state.highest() + 1, number - 1, now, false));
      }
      return new SeriesState(number, gaps);
    }
    for (SeriesState.Gap gap : state.gaps()) {
      if (number < gap.from() || number > gap.to()) {
        gaps.add(gap);
        continue;
      }
      if (gap.from() < number) {
        gaps.add(new SeriesState.Gap(gap.from(), number - 1, gap.firstSeenMs(), gap.alerted()));
      }
      if (number < gap.to()) {
        gaps.add(new SeriesState.Gap(number + 1, gap.to(), gap.firstSeenMs(), gap.alerted()));
      }
    }
    return new SeriesState(state.highest(), gaps);
  }

  private void checkGaps(long now) {
    List<KeyValue<String, SeriesState>> changed = new ArrayList<>();
    try (KeyValueIterator<String, SeriesState> it = seriesStore.all()) {
      while (it.hasNext()) {
        KeyValue<String, SeriesState> entry = it.next();
        List<SeriesState.Gap> gaps = new ArrayList<>();
        boolean change = false;
        for (SeriesState.Gap gap : entry.value.gaps()) {
          if (!gap.alerted() && now - gap.firstSeenMs() > grace.toMillis()) {
            context.forward(
                new Record<>(entry.key, Alert.gap(entry.key, gap.from(), gap.to(), now), now));
            gap = new SeriesState.Gap(gap.from(), gap.to(), gap.firstSeenMs(), true);
            change = true;
          }
          gaps.add(gap);
        }
        if (change) {
          changed.add(KeyValue.pair(entry.key, new SeriesState(entry.value.highest(), gaps)));
        }
      }
    }
    changed.forEach(kv -> seriesStore.put(kv.key, kv.value));
  }
}

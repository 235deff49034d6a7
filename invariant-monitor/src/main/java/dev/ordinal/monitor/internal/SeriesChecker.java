package dev.ordinal.monitor.internal;

import dev.ordinal.monitor.Alert;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueIterator;

/**
 * Per-series invariants on {@code InvoiceIssued} events keyed by series: a number is issued for one
 * invoice only, and no number below the highest stays missing longer than the grace. Which invoice
 * holds a number is kept per {@code series/number}; the missing numbers as ranges.
 */
public final class SeriesChecker extends DeadlineChecker<SeriesState, NumberState> {
  /**
   * @param seriesStoreName the state of each series: its highest number and its gaps
   * @param numberStoreName which invoice holds each {@code series/number}
   * @param grace how long a number below the highest may stay missing
   */
  public SeriesChecker(
      String seriesStoreName, String numberStoreName, Duration grace, Duration interval) {
    super(seriesStoreName, numberStoreName, grace, interval);
  }

  @Override
  void check(String series, Event event, long recordTime, long now) {
    Long number = event.number();
    if (series == null || number == null || number < 1) {
      return;
    }
    String numberKey = series + "/" + number;
    NumberState holder = index().get(numberKey);
    if (holder != null) {
      if (!Objects.equals(holder.invoiceId(), event.invoiceId()) && !holder.duplicateAlerted()) {
        index().put(numberKey, new NumberState(holder.invoiceId(), true));
        List<String> ids = new ArrayList<>();
        ids.add(holder.invoiceId());
        ids.add(event.invoiceId());
        context()
            .forward(
                new Record<>(series, Alert.duplicateNumber(series, number, ids, now), recordTime));
      }
      return;
    }
    index().put(numberKey, new NumberState(event.invoiceId(), false));
    SeriesState state = states().get(series);
    states().put(series, issued(state == null ? SeriesState.empty() : state, number, now));
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

  @Override
  void checkDeadlines(long now) {
    List<KeyValue<String, SeriesState>> changed = new ArrayList<>();
    try (KeyValueIterator<String, SeriesState> it = states().all()) {
      while (it.hasNext()) {
        KeyValue<String, SeriesState> entry = it.next();
        List<SeriesState.Gap> gaps = new ArrayList<>();
        boolean change = false;
        for (SeriesState.Gap gap : entry.value.gaps()) {
          if (!gap.alerted() && now - gap.firstSeenMs() > limit().toMillis()) {
            context()
                .forward(
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
    changed.forEach(kv -> states().put(kv.key, kv.value));
  }
}

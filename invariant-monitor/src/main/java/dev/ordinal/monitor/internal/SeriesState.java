package dev.ordinal.monitor.internal;

import java.util.List;

/**
 * A series in compact form: the highest number issued and the ranges below it that are still
 * missing, each with the wall-clock time the monitor first saw it missing. Numbers start at 1.
 */
public record SeriesState(long highest, List<Gap> gaps) {

  public record Gap(long from, long to, long firstSeenMs, boolean alerted) {}

  static SeriesState empty() {
    return new SeriesState(0, List.of());
  }
}

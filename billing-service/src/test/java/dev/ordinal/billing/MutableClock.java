package dev.ordinal.billing;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicReference;

/** A clock a test moves forward, so leases expire without waiting. */
final class MutableClock extends Clock {
  private final AtomicReference<Instant> now = new AtomicReference<>(Instant.now());

  void advance(Duration d) {
    now.updateAndGet(i -> i.plus(d));
  }

  @Override
  public ZoneId getZone() {
    return ZoneOffset.UTC;
  }

  @Override
  public Clock withZone(ZoneId zone) {
    return this;
  }

  @Override
  public Instant instant() {
    return now.get();
  }
}

package dev.ordinal.billing;

import java.time.Duration;
import java.time.OffsetDateTime;
import org.jooq.Field;
import org.jooq.impl.DSL;
import org.jooq.types.DayToSecond;

/**
 * Times that decide who may work on a row (leases, due times, in-flight windows) are taken from the
 * database's clock ({@code now()}), never a host's: two instances whose clocks differ still agree
 * on whether a lease has passed. Host clocks only stamp events.
 */
final class DbClock {
  private DbClock() {}

  /** The database's {@code now()} (the start of the current transaction). */
  static Field<OffsetDateTime> now() {
    return DSL.currentOffsetDateTime();
  }

  /** {@code now() + d} on the database's clock. */
  static Field<OffsetDateTime> nowPlus(Duration d) {
    return plus(now(), d);
  }

  /** {@code at + d}, computed by the database. */
  static Field<OffsetDateTime> plus(Field<OffsetDateTime> at, Duration d) {
    return at.plus(DSL.val(DayToSecond.valueOf(d)));
  }
}

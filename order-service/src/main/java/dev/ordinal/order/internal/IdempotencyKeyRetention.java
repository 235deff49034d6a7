package dev.ordinal.order.internal;

import static dev.ordinal.order.db.Tables.IDEMPOTENCY_KEY;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.time.OffsetDateTime;
import org.jooq.DSLContext;
import org.jooq.impl.DSL;

/**
 * Deletes idempotency keys older than the retention, in batches of {@link #BATCH_SIZE}, each in a
 * short transaction of its own. A retry that comes after its key was deleted places a new order:
 * the retention is the window in which a client may retry (24 h by default, as payment APIs do).
 *
 * @param clock the cutoff is computed from it
 * @param deleted counts the keys deleted
 */
public record IdempotencyKeyRetention(
    DSLContext dsl, Duration retention, Clock clock, Counter deleted) {
  public static final int BATCH_SIZE = 1000;

  /** Counts the keys deleted in {@code ordinal.idempotency.keys.deleted} of {@code registry}. */
  public IdempotencyKeyRetention(
      DSLContext dsl, Duration retention, MeterRegistry registry, Clock clock) {
    this(
        dsl,
        retention,
        clock,
        Counter.builder("ordinal.idempotency.keys.deleted")
            .description("Idempotency keys deleted after their retention")
            .register(registry));
  }

  /** Deletes every key past retention now; returns how many. */
  public int runOnce() {
    OffsetDateTime cutoff = OffsetDateTime.now(clock).minus(retention);
    int total = 0;
    int n;
    do {
      n =
          dsl.transactionResult(
              c ->
                  c.dsl()
                      .deleteFrom(IDEMPOTENCY_KEY)
                      .where(
                          // a key is unique per owner: the row is (owner, key)
                          DSL.row(IDEMPOTENCY_KEY.OWNER, IDEMPOTENCY_KEY.IDEMPOTENCY_KEY_)
                              .in(
                                  DSL.select(
                                          IDEMPOTENCY_KEY.OWNER, IDEMPOTENCY_KEY.IDEMPOTENCY_KEY_)
                                      .from(IDEMPOTENCY_KEY)
                                      .where(IDEMPOTENCY_KEY.CREATED_AT.lt(cutoff))
                                      .orderBy(IDEMPOTENCY_KEY.CREATED_AT)
                                      .limit(BATCH_SIZE)
                                      // another replica deleting the same keys: skip, don't wait
                                      .forUpdate()
                                      .skipLocked()))
                      .execute());
      total += n;
      deleted.increment(n);
    } while (n == BATCH_SIZE);
    return total;
  }
}

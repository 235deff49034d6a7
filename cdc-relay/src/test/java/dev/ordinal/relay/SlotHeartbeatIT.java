package dev.ordinal.relay;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ordinal.messaging.db.Tables;
import dev.ordinal.messaging.slot.SlotReader;
import dev.ordinal.messaging.slot.SlotReading;
import dev.ordinal.testkit.OrdinalStackExtension;
import dev.ordinal.testkit.TestNamespace;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.jooq.Field;
import org.jooq.Record;
import org.jooq.Table;
import org.jooq.impl.DSL;
import org.jooq.impl.SQLDataType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * With the outbox idle for 24 s while another table takes writes, the slot's confirmed_flush_lsn
 * keeps advancing (the relay's heartbeat, every second here), so the slot does not hold that WAL
 * back: read every 4 s, each reading is past the one before.
 */
@ExtendWith(OrdinalStackExtension.class)
class SlotHeartbeatIT {
  static final Table<Record> OTHER = DSL.table(DSL.name("other_writes"));
  static final Field<Long> ID = DSL.field(DSL.name("id"), SQLDataType.BIGINT.identity(true));
  static final Field<String> V = DSL.field(DSL.name("v"), SQLDataType.VARCHAR(100));

  /** Four heartbeat intervals of the fixture's relay (1 s) between two readings of the slot. */
  static final Duration SAMPLE_EVERY = Duration.ofSeconds(4);

  @Test
  void confirmedFlushLsnKeepsAdvancingWhileTheOutboxIsIdleForTwentyFourSeconds(TestNamespace ns)
      throws Exception {
    try (RelayFixture fx = RelayFixture.create(ns);
        OutboxRelay relay =
            new OutboxRelay(fx.config("heartbeat").build(), new SimpleMeterRegistry()).start()) {
      relay.awaitStreaming(Duration.ofSeconds(60));
      fx.owner.createTable(OTHER).column(ID).column(V).execute();
      SlotReader slot = new SlotReader(fx.ownerDb, fx.slot());
      List<SlotReading> readings = new CopyOnWriteArrayList<>();
      CountDownLatch sampled = new CountDownLatch(7);
      ScheduledExecutorService timers = Executors.newScheduledThreadPool(2);
      try {
        timers.scheduleAtFixedRate(
            () -> fx.owner.insertInto(OTHER).set(V, "x".repeat(100)).execute(),
            0,
            100,
            TimeUnit.MILLISECONDS);
        timers.scheduleAtFixedRate(
            () -> {
              try {
                readings.add(slot.read().get(0));
                sampled.countDown();
              } catch (Exception e) {
                throw new IllegalStateException(e);
              }
            },
            0,
            SAMPLE_EVERY.toMillis(),
            TimeUnit.MILLISECONDS);
        assertThat(sampled.await(60, TimeUnit.SECONDS)).as("7 samples over 24 s").isTrue();
      } finally {
        timers.shutdownNow();
      }
      assertThat(fx.owner.fetchCount(Tables.OUTBOX)).as("the outbox stayed idle").isZero();
      assertThat(fx.owner.fetchCount(OTHER)).as("the other table took writes").isGreaterThan(120);
      for (int i = 1; i < 7; i++) {
        assertThat(lsn(readings.get(i).confirmedFlushLsn()))
            .as("confirmed_flush_lsn at %d s after %d s", i * 4, (i - 1) * 4)
            .isGreaterThan(lsn(readings.get(i - 1).confirmedFlushLsn()));
      }
      long walWritten =
          lsn(readings.get(6).confirmedFlushLsn())
              - lsn(readings.get(0).confirmedFlushLsn())
              + readings.get(6).confirmedLagBytes();
      System.out.printf(
          "slot heartbeat: lag %d bytes at the end, %d bytes of WAL written in 24 s%n",
          readings.get(6).confirmedLagBytes(), walWritten);
      assertThat(readings.get(6).confirmedLagBytes())
          .as("the slot holds back less than was written")
          .isLessThan(walWritten);
    }
  }

  /** An LSN such as 0/1A2B3C as a number of bytes. */
  static long lsn(String text) {
    String[] parts = text.split("/");
    return (Long.parseLong(parts[0], 16) << 32) + Long.parseLong(parts[1], 16);
  }
}

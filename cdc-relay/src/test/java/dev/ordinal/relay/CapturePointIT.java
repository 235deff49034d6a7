package dev.ordinal.relay;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ordinal.relay.internal.CapturePoint;
import dev.ordinal.relay.internal.SlotPosition;
import dev.ordinal.testkit.OrdinalStackExtension;
import dev.ordinal.testkit.TestNamespace;
import java.sql.Connection;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(OrdinalStackExtension.class)
class CapturePointIT {

  /**
   * Two relays of one slot started at the same moment (an HA pair deployed together) both make
   * their capture point: one creates the slot, the other waits and finds it. Before, both could see
   * the slot missing and the second create failed ("already exists"), so that relay never started
   * (FrozenLeaderIT's standby, once in CI). Six fresh slots, two starts each released together.
   */
  /**
   * A server keeping WAL for slots without bound (PostgreSQL's default, -1) is warned about at the
   * relay's start, in one sentence naming the setting; with a bound, as the test stack sets (1GB),
   * nothing is said.
   */
  @Test
  void anUnboundedWalKeepIsWarnedAboutAndABoundIsNot(TestNamespace ns) {
    assertThat(SlotPosition.unboundedWalWarning("-1").orElseThrow())
        .startsWith("max_slot_wal_keep_size is -1: a relay that stops streaming");
    assertThat(SlotPosition.unboundedWalWarning("10GB")).isEmpty();
    assertThat(
            SlotPosition.unboundedWalWarning(
                DSL.using(ns.dataSource(), org.jooq.SQLDialect.POSTGRES)))
        .isEmpty();
  }

  @Test
  void twoRelaysMakingTheCapturePointOfOneFreshSlotAtOnceBothSucceed(TestNamespace ns)
      throws Exception {
    try (RelayFixture fx = RelayFixture.create(ns)) {
      List<String> slots = new ArrayList<>();
      ExecutorService two = Executors.newFixedThreadPool(2);
      try {
        for (int i = 0; i < 6; i++) {
          String slot = fx.slot() + "_pair" + i;
          slots.add(slot);
          RelayConfig config = fx.config("pair").slot(slot, ns.name() + "_pub", false).build();
          CyclicBarrier together = new CyclicBarrier(2);
          List<Future<?>> starts = new ArrayList<>();
          for (int r = 0; r < 2; r++) {
            starts.add(
                two.submit(
                    () -> {
                      try (Connection c = SlotPosition.connect(config)) {
                        together.await(10, TimeUnit.SECONDS);
                        CapturePoint.ensure(DSL.using(c), config);
                      }
                      return null;
                    }));
          }
          for (Future<?> f : starts) {
            f.get(60, TimeUnit.SECONDS); // throws when a start failed
          }
          assertThat(
                  fx.owner.fetchCount(
                      DSL.table("pg_replication_slots"),
                      DSL.field("slot_name", String.class).eq(slot)))
              .as("slot " + slot)
              .isEqualTo(1);
        }
      } finally {
        two.shutdownNow();
        fx.owner
            .select(DSL.field("pg_drop_replication_slot(slot_name)"))
            .from(DSL.table("pg_replication_slots"))
            .where(DSL.field("slot_name", String.class).in(slots))
            .fetch();
      }
    }
  }
}

package dev.ordinal.relay;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ordinal.messaging.outbox.Outbox;
import dev.ordinal.messaging.outbox.OutboxEvent;
import dev.ordinal.runtime.LoopHealth;
import dev.ordinal.runtime.Supervisor;
import dev.ordinal.testkit.OrdinalStackExtension;
import dev.ordinal.testkit.TestNamespace;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import org.awaitility.Awaitility;
import org.jooq.exception.DataAccessException;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The slot dropped under a streaming relay (its replication connection ended, then the slot dropped
 * while nothing used it). Debezium's own retries (errors.max.retries, unlimited by default) would
 * reconnect and create a new slot from now, silently skipping every event committed in between; the
 * relay lets its engine stop instead, and its check finds the slot missing behind the stored
 * position: it refuses, and no slot is made behind its back.
 */
@ExtendWith(OrdinalStackExtension.class)
class SlotDroppedWhileStreamingIT {

  @Test
  void aSlotDroppedUnderTheStreamIsRefusedNotRecreated(TestNamespace ns) throws Exception {
    try (RelayFixture fx = RelayFixture.create(ns)) {
      Outbox outbox = new Outbox(Clock.systemUTC());
      SimpleMeterRegistry registry = new SimpleMeterRegistry();
      try (Supervisor supervisor = new Supervisor("relay", registry);
          OutboxRelay relay = new OutboxRelay(fx.config("dropped").build(), registry)) {
        relay.start(supervisor);
        relay.awaitStreaming(Duration.ofSeconds(60));
        for (int i = 0; i < 20; i++) {
          int k = i;
          fx.owner.transaction(
              c -> outbox.append(c.dsl(), new OutboxEvent("order", "o-" + k, "Seq", "{}")));
        }
        Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> relay.relayed() >= 20);
        Awaitility.await()
            .atMost(Duration.ofSeconds(30))
            .until(
                () ->
                    fx.owner.fetchCount(DSL.table(DSL.name(ns.schema(), fx.slot() + "_offsets")))
                        > 0);

        Awaitility.await()
            .atMost(Duration.ofSeconds(60))
            .pollInterval(Duration.ofMillis(20))
            .ignoreExceptionsInstanceOf(DataAccessException.class) // active again: try again
            .until(() -> dropped(fx));

        LoopHealth refused =
            Awaitility.await()
                .atMost(Duration.ofSeconds(60))
                .until(
                    () -> supervisor.health().get(0),
                    h -> h.lastError() != null && h.lastError().contains("is missing"));
        System.out.println("slot dropped while streaming: " + refused.lastError());
        assertThat(
                fx.owner.fetchCount(
                    DSL.table("pg_replication_slots"),
                    DSL.field("slot_name", String.class).eq(fx.slot())))
            .as("no slot made behind the relay's check")
            .isZero();
        assertThat(relay.isLeader()).isFalse();
      }
    }
  }

  /** Ends the stream on the slot and drops it; throws while a connection is on it again. */
  private boolean dropped(RelayFixture fx) {
    fx.owner
        .select(DSL.field("pg_terminate_backend(active_pid)"))
        .from(DSL.table("pg_replication_slots"))
        .where(DSL.field("slot_name", String.class).eq(fx.slot()))
        .and(DSL.field("active_pid").isNotNull())
        .fetch();
    fx.owner
        .select(DSL.field("pg_drop_replication_slot(slot_name)"))
        .from(DSL.table("pg_replication_slots"))
        .where(DSL.field("slot_name", String.class).eq(fx.slot()))
        .fetch();
    return fx.owner.fetchCount(
            DSL.table("pg_replication_slots"), DSL.field("slot_name", String.class).eq(fx.slot()))
        == 0;
  }
}

package dev.ordinal.relay.internal;

import dev.ordinal.relay.RelayConfig;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.impl.DSL;

/**
 * The publication and the slot a relay streams through, made before its engine starts: pgoutput
 * sends a change only if the publication existed when it was committed, and a slot holds only what
 * was committed after it was made, so a relay whose start returns has both, and everything
 * committed from then on reaches Kafka. (Left to Debezium's first poll, both were made a moment
 * after the relay reported that it streamed, and what was committed in between was lost.)
 */
public final class CapturePoint {
  private CapturePoint() {}

  /** First half of the advisory lock key that serialises making one slot: "ORDC". */
  static final int NAMESPACE = 0x4F524443;

  /**
   * Creates the publication (when the relay may) and then the slot, each if missing. Relays of one
   * slot started at the same moment take turns under a session advisory lock on {@code dsl}'s
   * connection: without it both saw the slot missing, and the second one's create failed ("already
   * exists"), so that relay never started.
   */
  public static void ensure(DSLContext dsl, RelayConfig c) {
    Field<Integer> key = DSL.val(c.slotName().hashCode());
    dsl.select(DSL.field("pg_advisory_lock({0}, {1})", DSL.val(NAMESPACE), key)).fetch();
    try {
      ensureLocked(dsl, c);
    } finally {
      dsl.select(DSL.field("pg_advisory_unlock({0}, {1})", DSL.val(NAMESPACE), key)).fetch();
    }
  }

  private static void ensureLocked(DSLContext dsl, RelayConfig c) {
    if (c.createPublication()
        && !dsl.fetchExists(
            DSL.selectOne()
                .from(DSL.table(DSL.name("pg_catalog", "pg_publication")))
                .where(DSL.field(DSL.name("pubname"), String.class).eq(c.publicationName())))) {
      dsl.execute(
          "create publication {0} for table {1}",
          DSL.name(c.publicationName()), DSL.name(c.outboxSchema(), c.outboxTable().table()));
    }
    if (SlotPosition.slot(dsl, c.slotName()).isEmpty()) {
      createSlot(dsl, c.slotName());
    }
  }

  /** A pgoutput slot from now; a failover slot where the server has them (PostgreSQL 17). */
  public static void createSlot(DSLContext dsl, String slot) {
    boolean failoverSlots =
        dsl.fetchValue(
                DSL.field("current_setting('server_version_num')::int >= 170000", Boolean.class))
            .booleanValue();
    dsl.select(
            failoverSlots
                ? DSL.field(
                    "pg_create_logical_replication_slot({0}, 'pgoutput', false, false, true)",
                    DSL.val(slot))
                : DSL.field("pg_create_logical_replication_slot({0}, 'pgoutput')", DSL.val(slot)))
        .fetch();
  }
}

package dev.ordinal.relay.internal;

import dev.ordinal.relay.RelayConfig;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import org.jooq.DSLContext;
import org.jooq.Record2;
import org.jooq.impl.DSL;

/**
 * Whether a failover of the orders database can lose events the relay already published.
 *
 * <p>An asynchronous physical standby lags its primary; if the primary dies and the standby is
 * promoted, the commits it had not received are gone. Events of those commits that the relay had
 * sent to Kafka are then ghosts: billing numbers and charges orders the promoted database never
 * had, and a client's retry creates them a second time. PostgreSQL 17 closes this: a primary with
 * {@code synchronized_standby_slots} naming the standbys' physical slots decodes nothing for a
 * failover logical slot before those standbys have flushed it. So the relay publishes only when
 * every physical standby (every physical slot, and every physical walsender) is covered that way,
 * and its own slot is a failover slot; otherwise it refuses, unless its operator accepts the risk
 * ({@link RelayConfig#allowUnguardedStandbys()}). A server with no standby has nothing to lose.
 */
public final class StandbyGuard {
  private StandbyGuard() {}

  /**
   * What was found.
   *
   * @param unguarded the physical standbys logical decoding does not wait for, named for an
   *     operator ({@code slot standby1}, {@code walsender walreceiver (pid 4711) with no slot
   *     there}); empty when there are none or all are covered
   * @param standbys how many physical standbys (slots and walsenders without one) there are
   * @param settingExists whether the server has {@code synchronized_standby_slots} (PostgreSQL 17)
   * @param failoverSlot whether the relay's slot is a failover slot (false before PostgreSQL 17, or
   *     when the slot is missing)
   */
  public record Reading(
      List<String> unguarded, int standbys, boolean settingExists, boolean failoverSlot) {

    /** How many standbys a failover could lose published events to. */
    public int exposed() {
      return !unguarded.isEmpty() ? unguarded.size() : standbys > 0 && !failoverSlot ? standbys : 0;
    }
  }

  /** Reads the standbys, the setting and the relay's slot on {@code dsl}'s server. */
  public static Reading read(DSLContext dsl, String slotName) {
    String setting =
        dsl.fetchValue(
            DSL.field("current_setting('synchronized_standby_slots', true)", String.class));
    Set<String> listed =
        setting == null
            ? Set.of()
            : Arrays.stream(setting.split(","))
                .map(s -> s.trim().replace("\"", ""))
                .filter(s -> !s.isEmpty())
                .collect(Collectors.toSet());
    List<String> unguarded = new ArrayList<>();
    int standbys = 0;
    for (String slot :
        dsl.select(DSL.field(DSL.name("slot_name"), String.class))
            .from(DSL.table(DSL.name("pg_catalog", "pg_replication_slots")))
            .where(DSL.field(DSL.name("slot_type"), String.class).eq("physical"))
            .orderBy(DSL.field(DSL.name("slot_name")))
            .fetch(DSL.field(DSL.name("slot_name"), String.class))) {
      standbys++;
      if (!listed.contains(slot)) {
        unguarded.add("slot " + slot);
      }
    }
    // physical walsenders are connected to no database; one on no slot is a standby (or a base
    // backup) nothing can wait for; one on a physical slot is counted (and named) with its slot
    Set<Integer> onSlots =
        dsl.select(DSL.field(DSL.name("active_pid"), Integer.class))
            .from(DSL.table(DSL.name("pg_catalog", "pg_replication_slots")))
            .where(DSL.field(DSL.name("active_pid")).isNotNull())
            .fetchSet(DSL.field(DSL.name("active_pid"), Integer.class));
    for (Record2<Integer, String> sender :
        dsl.select(
                DSL.field(DSL.name("r", "pid"), Integer.class),
                DSL.field(DSL.name("r", "application_name"), String.class))
            .from(DSL.table(DSL.name("pg_catalog", "pg_stat_replication")).as("r"))
            .join(DSL.table(DSL.name("pg_catalog", "pg_stat_activity")).as("a"))
            .on(DSL.field(DSL.name("a", "pid")).eq(DSL.field(DSL.name("r", "pid"))))
            .where(DSL.field(DSL.name("a", "datid")).isNull())
            .orderBy(DSL.field(DSL.name("r", "pid")))
            .fetch()) {
      if (!onSlots.contains(sender.value1())) {
        standbys++;
        unguarded.add(
            "walsender " + sender.value2() + " (pid " + sender.value1() + ") with no slot there");
      }
    }
    boolean failoverSlot =
        SlotPosition.slot(dsl, slotName).map(s -> Boolean.TRUE.equals(s.failover())).orElse(false);
    return new Reading(List.copyOf(unguarded), standbys, setting != null, failoverSlot);
  }

  /**
   * The sentence the relay refuses with, or empty when a failover cannot lose what it publishes (no
   * standby, or each one waited for through a failover slot) or its operator accepts the risk.
   */
  public static Optional<String> refusal(Reading r, RelayConfig c) {
    if (r.exposed() == 0 || c.allowUnguardedStandbys()) {
      return Optional.empty();
    }
    String override =
        ", or start the relay with --allow-unguarded-standbys to accept that risk (docs/RELAY.md,"
            + " \"Failover\").";
    String risk =
        ": a failover to one of them loses commits whose events the relay would already have"
            + " published (ghost orders, invoiced and charged)";
    String database = "The database of outbox " + c.outboxSchema() + " has physical standbys ";
    String standbys = "(" + String.join(", ", r.unguarded()) + ")";
    if (!r.settingExists()) {
      return Optional.of(
          database
              + standbys
              + " and, before PostgreSQL 17, no synchronized_standby_slots to make logical decoding"
              + " wait for them"
              + risk
              + "; move to PostgreSQL 17 with the standbys' slots in synchronized_standby_slots"
              + override);
    }
    if (!r.unguarded().isEmpty()) {
      return Optional.of(
          database
              + "logical decoding does not wait for "
              + standbys
              + risk
              + "; give each standby a physical slot and list those slots in"
              + " synchronized_standby_slots on the primary"
              + override);
    }
    return Optional.of(
        "Slot "
            + c.slotName()
            + " is not a failover slot, so synchronized_standby_slots does not hold back what the"
            + " relay is sent"
            + risk
            + "; make it one (ALTER_REPLICATION_SLOT "
            + c.slotName()
            + " (FAILOVER true) on a replication connection, with no relay running)"
            + override);
  }
}

package dev.ordinal.relay.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ordinal.messaging.db.DatabaseSettings;
import dev.ordinal.relay.RelayConfig;
import java.util.List;
import org.junit.jupiter.api.Test;

/** When the relay refuses to publish for a failover's sake, and the sentence it gives. */
class StandbyGuardTest {
  private static RelayConfig.Builder config() {
    return RelayConfig.builder(
        new DatabaseSettings("jdbc:postgresql://localhost:5432/app", "relay", "secret"),
        "localhost:9092",
        "orders",
        "ordinal");
  }

  @Test
  void noStandbyNothingToLose() {
    var r = new StandbyGuard.Reading(List.of(), 0, false, false);
    assertThat(r.exposed()).isZero();
    assertThat(StandbyGuard.refusal(r, config().build())).isEmpty();
  }

  @Test
  void everyStandbyWaitedForThroughAFailoverSlot() {
    var r = new StandbyGuard.Reading(List.of(), 2, true, true);
    assertThat(r.exposed()).isZero();
    assertThat(StandbyGuard.refusal(r, config().build())).isEmpty();
  }

  @Test
  void beforePostgres17EveryStandbyIsUnguarded() {
    var r = new StandbyGuard.Reading(List.of("slot replica_a", "slot replica_b"), 2, false, false);
    assertThat(r.exposed()).isEqualTo(2);
    assertThat(StandbyGuard.refusal(r, config().build()))
        .hasValueSatisfying(
            s ->
                assertThat(s)
                    .contains("(slot replica_a, slot replica_b)")
                    .contains("before PostgreSQL 17")
                    .contains("--allow-unguarded-standbys"));
  }

  @Test
  void aListedStandbyDoesNotHelpASlotThatIsNotAFailoverSlot() {
    var r = new StandbyGuard.Reading(List.of(), 1, true, false);
    assertThat(r.exposed()).isEqualTo(1);
    assertThat(StandbyGuard.refusal(r, config().build()))
        .hasValueSatisfying(
            s -> assertThat(s).startsWith("Slot ordinal_orders is not a failover slot"));
  }

  @Test
  void theOverrideAcceptsTheRisk() {
    var r = new StandbyGuard.Reading(List.of("slot standby1"), 1, true, true);
    assertThat(r.exposed()).isEqualTo(1);
    assertThat(StandbyGuard.refusal(r, config().allowUnguardedStandbys(true).build())).isEmpty();
  }
}

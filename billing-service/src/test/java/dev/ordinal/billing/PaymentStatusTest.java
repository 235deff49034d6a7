package dev.ordinal.billing;

import static dev.ordinal.billing.PaymentStatus.CANCELLED;
import static dev.ordinal.billing.PaymentStatus.CAPTURED;
import static dev.ordinal.billing.PaymentStatus.FAILED;
import static dev.ordinal.billing.PaymentStatus.PENDING;
import static dev.ordinal.billing.PaymentStatus.REFUNDED;
import static dev.ordinal.billing.PaymentStatus.REFUND_FAILED;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.Test;

/**
 * The payment state machine without a database: every allowed transition, a few forbidden ones, and
 * {@link PaymentLifecycle} refusing to build an update for a forbidden one. What the guarded
 * updates do to real rows is {@code RefundOrderIT}'s and the other billing ITs'.
 */
class PaymentStatusTest {
  /** A jOOQ context with no connection: it builds and renders statements, it runs none. */
  private static final DSLContext SQL = DSL.using(SQLDialect.POSTGRES);

  private static final UUID ORDER = UUID.fromString("00000000-0000-0000-0000-000000000042");

  @Test
  void theAllowedTransitionsAreExactlyTheSixOfTheDiagram() {
    List<String> allowed = new ArrayList<>();
    for (PaymentStatus from : PaymentStatus.values()) {
      for (PaymentStatus to : PaymentStatus.values()) {
        if (PaymentStatus.isValidTransition(from, to)) {
          allowed.add(from + " -> " + to);
        }
      }
    }
    assertThat(allowed)
        .containsExactlyInAnyOrder(
            "PENDING -> CAPTURED",
            "PENDING -> CANCELLED",
            "PENDING -> FAILED",
            "CAPTURED -> REFUNDED",
            "CAPTURED -> REFUND_FAILED",
            "CANCELLED -> CAPTURED");
  }

  @Test
  void nextOfEachStateAgreesWithIsValidTransition() {
    assertThat(PENDING.next()).containsExactlyInAnyOrder(CAPTURED, CANCELLED, FAILED);
    assertThat(CAPTURED.next()).containsExactlyInAnyOrder(REFUNDED, REFUND_FAILED);
    assertThat(CANCELLED.next()).containsExactly(CAPTURED);
    assertThat(REFUNDED.next()).as("final").isEmpty();
    assertThat(FAILED.next()).as("final").isEmpty();
    assertThat(REFUND_FAILED.next()).as("final: an operator's case").isEmpty();
    assertThat(PaymentStatus.initial()).containsExactlyInAnyOrder(PENDING, CANCELLED);
  }

  @Test
  void nothingMovesBackwardsOrLeavesAFinalState() {
    assertThat(PaymentStatus.isValidTransition(CAPTURED, PENDING)).isFalse();
    assertThat(PaymentStatus.isValidTransition(REFUNDED, CAPTURED)).isFalse();
    assertThat(PaymentStatus.isValidTransition(CANCELLED, PENDING)).isFalse();
    assertThat(PaymentStatus.isValidTransition(CANCELLED, REFUNDED))
        .as("a cancelled payment is refunded only through CAPTURED")
        .isFalse();
    assertThat(PaymentStatus.isValidTransition(PENDING, REFUNDED))
        .as("nothing is refunded that was not captured")
        .isFalse();
    assertThat(PaymentStatus.isValidTransition(FAILED, CAPTURED)).isFalse();
    assertThat(PaymentStatus.isValidTransition(REFUND_FAILED, REFUNDED)).isFalse();
    assertThat(PaymentStatus.isValidTransition(PENDING, PENDING))
        .as("staying put is no transition")
        .isFalse();
  }

  @Test
  void anAllowedTransitionIsAnUpdateGuardedByTheStateItLeaves() {
    var refund = PaymentLifecycle.move(SQL, ORDER, CAPTURED, REFUNDED);
    assertThat(refund.getSQL())
        .isEqualTo(
            "update \"payment\" set \"status\" = ?, \"updated_at\" = cast(current_timestamp as"
                + " timestamp with time zone) where (\"payment\".\"order_id\" = cast(? as uuid)"
                + " and \"payment\".\"status\" = ?)");
    assertThat(refund.getBindValues()).containsExactly("REFUNDED", ORDER, "CAPTURED");

    var capture = PaymentLifecycle.move(SQL, ORDER, Set.of(PENDING, CANCELLED), CAPTURED);
    assertThat(capture.getSQL()).endsWith("and \"payment\".\"status\" in (?, ?))");
    assertThat(capture.getBindValues()).containsExactly("CAPTURED", ORDER, "CANCELLED", "PENDING");
  }

  @Test
  void aForbiddenTransitionCannotBeBuilt() {
    assertThatThrownBy(() -> PaymentLifecycle.move(SQL, ORDER, REFUNDED, PENDING))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "payment transition REFUNDED -> PENDING is not allowed; from REFUNDED a payment may"
                + " go to []");
    assertThatThrownBy(() -> PaymentLifecycle.move(SQL, ORDER, PENDING, REFUNDED))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("payment transition PENDING -> REFUNDED is not allowed");
    assertThatThrownBy(() -> PaymentLifecycle.move(SQL, ORDER, CAPTURED, CAPTURED))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("payment transition CAPTURED -> CAPTURED is not allowed");
    assertThatThrownBy(() -> PaymentLifecycle.move(SQL, ORDER, Set.of(PENDING, FAILED), CAPTURED))
        .as("one state that may not move is enough to refuse the update")
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("payment transition FAILED -> CAPTURED is not allowed");
    assertThatThrownBy(() -> PaymentLifecycle.move(SQL, ORDER, Set.of(), CAPTURED))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("a transition to CAPTURED needs a state to leave");
  }
}

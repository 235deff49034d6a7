package dev.ordinal.lab.sim;

import java.math.BigDecimal;
import java.time.Instant;

/**
 * A charge the simulated payment gateway made, as it is now.
 *
 * @param chargeId the gateway's id, {@code ch_} and 16 hex digits
 * @param idempotencyKey the key it was made under; the gateway makes one charge per key
 * @param orderId the order it pays
 * @param amount the amount, with the scale it was sent with
 * @param currency ISO 4217 code
 * @param status {@code CAPTURED}, or {@code REFUNDED} after a refund
 * @param capturedAt when it was made, by the simulator's clock
 */
public record Charge(
    String chargeId,
    String idempotencyKey,
    String orderId,
    BigDecimal amount,
    String currency,
    Status status,
    Instant capturedAt) {

  /** A charge is captured when made; a refund is final. */
  public enum Status {
    CAPTURED,
    REFUNDED
  }

  Charge refunded() {
    return new Charge(
        chargeId, idempotencyKey, orderId, amount, currency, Status.REFUNDED, capturedAt);
  }
}

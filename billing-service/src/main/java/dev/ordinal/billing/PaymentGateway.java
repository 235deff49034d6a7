package dev.ordinal.billing;

import java.math.BigDecimal;
import java.time.Duration;
import java.util.Optional;
import java.util.UUID;

/**
 * The payment gateway. Charges carry the order id as idempotency key, so however often billing
 * retries, an order is charged once.
 */
public interface PaymentGateway {
  /**
   * Charges {@code amount} for {@code orderId}; returns the gateway's charge id (the same one for
   * every retry of the same order).
   *
   * @throws IntegratorException.Transient not charged, or unknown: retry with the same key
   * @throws IntegratorException.Rejected refused for this attempt (declined, invalid): nothing was
   *     charged
   */
  String charge(UUID orderId, BigDecimal amount, String currency) throws IntegratorException;

  /**
   * The charge made under {@code orderId}'s idempotency key, if any: how billing learns whether an
   * attempt whose outcome it does not know charged, without charging to find out.
   *
   * @throws IntegratorException.Transient the look-up failed; ask again later
   */
  Optional<String> chargeFor(UUID orderId) throws IntegratorException;

  /** The longest a call may take from billing's side (its client timeout). */
  default Duration callTimeout() {
    return Duration.ofSeconds(5);
  }

  /**
   * Refunds a captured charge; idempotent (refunding a refunded charge succeeds again).
   *
   * @throws IntegratorException.Transient try again later
   * @throws IntegratorException.Rejected refused for good (an unknown charge)
   */
  void refund(String chargeId) throws IntegratorException;
}

package dev.ordinal.billing;

import java.math.BigDecimal;
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
   * @throws IntegratorException.Rejected refused for good
   */
  String charge(UUID orderId, BigDecimal amount, String currency) throws IntegratorException;

  /**
   * Refunds a captured charge; idempotent (refunding a refunded charge succeeds again).
   *
   * @throws IntegratorException.Transient try again later
   */
  void refund(String chargeId) throws IntegratorException;
}

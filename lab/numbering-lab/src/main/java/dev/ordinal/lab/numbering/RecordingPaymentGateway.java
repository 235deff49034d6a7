package dev.ordinal.lab.numbering;

import dev.ordinal.billing.IntegratorException;
import dev.ordinal.billing.PaymentGateway;
import java.math.BigDecimal;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Passes charges on and remembers the charge ids the gateway answered per order: the gateway
 * answers a repeated idempotency key with the charge it made, so distinct ids are distinct charges.
 */
final class RecordingPaymentGateway implements PaymentGateway {
  private final PaymentGateway delegate;
  private final Map<UUID, Set<String>> charges = new ConcurrentHashMap<>();

  RecordingPaymentGateway(PaymentGateway delegate) {
    this.delegate = delegate;
  }

  @Override
  public String charge(UUID orderId, BigDecimal amount, String currency)
      throws IntegratorException {
    String id = delegate.charge(orderId, amount, currency);
    charges.computeIfAbsent(orderId, k -> ConcurrentHashMap.newKeySet()).add(id);
    return id;
  }

  @Override
  public void refund(String chargeId) throws IntegratorException {
    delegate.refund(chargeId);
  }

  @Override
  public java.util.Optional<String> chargeFor(UUID orderId) throws IntegratorException {
    return delegate.chargeFor(orderId);
  }

  @Override
  public java.time.Duration callTimeout() {
    return delegate.callTimeout();
  }

  /** Distinct charges seen for {@code orderId}. */
  int chargesFor(UUID orderId) {
    return charges.getOrDefault(orderId, Set.of()).size();
  }
}

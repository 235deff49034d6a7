package dev.ordinal.lab.numbering;

import dev.ordinal.billing.HttpPaymentGateway;
import dev.ordinal.billing.IntegratorException;
import dev.ordinal.billing.PaymentGateway;
import java.math.BigDecimal;
import java.net.URI;
import java.time.Duration;
import java.util.Optional;
import java.util.UUID;

/**
 * The naive gateway client: a fresh idempotency key for every call, so the gateway cannot tell a
 * second charge for the same order from a new one. The project's {@code HttpPaymentGateway} sends
 * the order id as the key instead; this one charges through it with a random key.
 */
final class FreshKeyPaymentGateway implements PaymentGateway {
  private static final Duration TIMEOUT = Duration.ofSeconds(5);

  private final HttpPaymentGateway http;

  FreshKeyPaymentGateway(URI base) {
    this.http = new HttpPaymentGateway(base, TIMEOUT, orderId -> UUID.randomUUID().toString());
  }

  @Override
  public String charge(UUID orderId, BigDecimal amount, String currency)
      throws IntegratorException {
    return http.charge(orderId, amount, currency);
  }

  @Override
  public Optional<String> chargeFor(UUID orderId) throws IntegratorException {
    // every call had a key of its own: there is no key to ask about
    throw new IntegratorException.Rejected("the naive lab gateway keeps no keys to look up");
  }

  @Override
  public void refund(String chargeId) throws IntegratorException {
    // the lab's naive consumer never refunds; refunding is the real gateway's business
    throw new IntegratorException.Rejected("the naive lab gateway does not refund");
  }
}

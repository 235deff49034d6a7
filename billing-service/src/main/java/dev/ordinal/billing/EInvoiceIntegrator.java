package dev.ordinal.billing;

import java.math.BigDecimal;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/**
 * The external e-invoice integrator: slow (200 ms to 2 s) and fallible. One implementation talks
 * HTTP ({@link HttpEInvoiceIntegrator}, e.g. to the simulator in {@code infra}); tests may add
 * others.
 *
 * <p>Never called inside a database transaction: the number is reserved and committed first.
 */
public interface EInvoiceIntegrator {

  /** What billing sends: the legal number and what it numbers. */
  record Submission(
      String series,
      long number,
      UUID invoiceId,
      UUID orderId,
      BigDecimal total,
      String currency) {}

  /** An invoice the integrator holds under a number. */
  record RemoteInvoice(String series, long number, UUID invoiceId) {}

  /**
   * Submits an invoice under its number. Returns normally when the integrator holds it (now, or
   * already from an earlier attempt of the same invoice).
   *
   * @throws IntegratorException.Transient nothing was stored; try again with the same number
   * @throws IntegratorException.Rejected permanently refused; the number stays with the invoice
   * @throws IntegratorException.OutcomeUnknown the call may or may not have been stored (timeout,
   *     connection dropped after sending): look the number up before anything else
   * @throws IntegratorException.NumberTaken the number holds another invoice there: never expected
   *     with just-in-time reservation; needs an operator
   */
  void submit(Submission submission) throws IntegratorException;

  /**
   * What the integrator holds under {@code series}/{@code number}, if anything.
   *
   * @throws IntegratorException.Transient the look-up failed; try later
   */
  Optional<RemoteInvoice> lookup(String series, long number) throws IntegratorException;

  /**
   * Every number the integrator holds invoice {@code invoiceId} under, by series and number (more
   * than one only when billing lost its own records of a submission, e.g. a restored database). The
   * default cannot ask and always fails: a client that can ask overrides it.
   *
   * @throws IntegratorException.Transient the look-up failed, or this client cannot ask by id
   */
  default List<RemoteInvoice> lookupByInvoice(UUID invoiceId) throws IntegratorException {
    throw new IntegratorException.Transient(
        "This integrator client cannot look invoices up by id: " + getClass().getName(), null);
  }
}

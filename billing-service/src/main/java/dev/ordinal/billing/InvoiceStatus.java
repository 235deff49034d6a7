package dev.ordinal.billing;

/**
 * The life of an invoice. Transitions are guarded in SQL ({@code WHERE status = ...}), so a late or
 * repeated step never moves an invoice backwards.
 *
 * <pre>
 * DRAFT --reserve--> SENDING --accepted--> ISSUED
 *   |                  |  \--rejected--> ERROR --resend--> SENDING
 *   |                  |                   \--void (reason)--> VOIDED
 *   \--order cancelled--> CANCELLED (no number)
 * </pre>
 *
 * <p>An order cancelled after its number was reserved keeps the number: the invoice is marked
 * cancelled ({@code cancelled_at}) and its series' {@link InvoiceSeries.CancelRule} decides the
 * rest: {@code VOID} voids a number the integrator does not hold (SENDING after a look-up, or
 * ERROR), {@code ISSUE_THEN_CANCEL} issues it anyway. ISSUED stays ISSUED under both.
 */
public enum InvoiceStatus {
  DRAFT,
  SENDING,
  ISSUED,
  ERROR,
  VOIDED,
  CANCELLED
}

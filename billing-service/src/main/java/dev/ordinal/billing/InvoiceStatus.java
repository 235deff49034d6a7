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
 */
public enum InvoiceStatus {
  DRAFT,
  SENDING,
  ISSUED,
  ERROR,
  VOIDED,
  CANCELLED
}

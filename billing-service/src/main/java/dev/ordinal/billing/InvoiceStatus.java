package dev.ordinal.billing;

/**
 * The life of an invoice; the transitions, each guarded in SQL so a late or repeated step never
 * moves an invoice backwards, are in {@link InvoiceLifecycle}.
 */
public enum InvoiceStatus {
  DRAFT,
  SENDING,
  ISSUED,
  ERROR,
  VOIDED,
  CANCELLED
}

package dev.ordinal.monitor;

/** What an alert on {@code <prefix>.alerts} reports. Each condition is reported once. */
public enum AlertKind {
  /** An order placed and not cancelled has no invoice after the invoice deadline. */
  MISSING_INVOICE,
  /** One order has two invoices (different invoice ids or numbers). */
  DUPLICATE_INVOICE,
  /** One number of a series was issued for two different invoices. */
  DUPLICATE_NUMBER,
  /** Numbers {@code from..to} of a series, below the highest issued one, are missing past grace. */
  GAP
}

package dev.ordinal.lab.sim;

import java.time.Instant;

/**
 * An invoice the integrator accepted and keeps: what {@code GET /invoices/{series}/{number}}
 * returns. Once stored it never changes; a later submission of the same number returns it as is.
 *
 * @param number the legal number it was accepted under
 * @param invoiceId the submitter's invoice id
 * @param orderId the order the invoice bills
 * @param total the total exactly as submitted (a decimal string)
 * @param currency ISO 4217 code
 * @param acceptedAt when it was stored, by the simulator's clock
 */
public record AcceptedInvoice(
    InvoiceNumber number,
    String invoiceId,
    String orderId,
    String total,
    String currency,
    Instant acceptedAt) {}

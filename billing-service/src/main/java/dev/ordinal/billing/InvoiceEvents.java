package dev.ordinal.billing;

import dev.ordinal.billing.db.tables.records.InvoiceRecord;
import dev.ordinal.contracts.AggregateType;
import dev.ordinal.contracts.EventCodec;
import dev.ordinal.contracts.EventPayload;
import dev.ordinal.contracts.InvoiceIssuedV1;
import dev.ordinal.contracts.InvoiceVoidedV1;
import dev.ordinal.messaging.outbox.Outbox;
import dev.ordinal.messaging.outbox.OutboxEvent;
import dev.ordinal.runtime.Tracing;
import java.time.Clock;
import org.jooq.DSLContext;

/**
 * Billing's own events, written to its outbox in the transaction that changes the invoice: {@code
 * InvoiceIssued} when the integrator holds the number, {@code InvoiceVoided} when a number is
 * voided with a reason (the contract's {@link InvoiceIssuedV1} and {@link InvoiceVoidedV1}). Both
 * go to {@code <prefix>.invoice}, keyed by order id, and carry the invoice id, series and number,
 * so a reader (the invariant monitor) accounts for every number of a series, and the order's trace
 * context.
 */
final class InvoiceEvents {
  private final Outbox outbox;

  InvoiceEvents(Clock clock) {
    this.outbox = new Outbox(clock);
  }

  /** {@code InvoiceIssued} for {@code inv} (numbered), in {@code tx}. */
  void issued(DSLContext tx, InvoiceRecord inv) {
    append(
        tx,
        inv,
        new InvoiceIssuedV1(
            InvoiceNumbering.uuid(inv),
            inv.getOrderId(),
            inv.getSeries(),
            inv.getNumber(),
            inv.getTotal(),
            inv.getCurrency()));
  }

  /** {@code InvoiceVoided} for {@code inv} (numbered, voided with its reason), in {@code tx}. */
  void voided(DSLContext tx, InvoiceRecord inv) {
    append(
        tx,
        inv,
        new InvoiceVoidedV1(
            InvoiceNumbering.uuid(inv),
            inv.getOrderId(),
            inv.getSeries(),
            inv.getNumber(),
            inv.getVoidReason()));
  }

  /**
   * {@code event} on the outbox with the trace context of the work that writes it (the issuer's
   * span: its traceparent, and the outbox takes its tracestate), else the order's ({@code inv}'s
   * traceparent and tracestate).
   */
  private void append(DSLContext tx, InvoiceRecord inv, EventPayload event) {
    String current = Tracing.currentTraceparent();
    outbox.append(
        tx,
        new OutboxEvent(
            AggregateType.INVOICE.wireName(),
            event.orderId().toString(),
            event.type().wireName(),
            EventCodec.toJson(event),
            current != null ? current : inv.getTraceparent(),
            current != null ? null : inv.getTracestate()));
  }
}

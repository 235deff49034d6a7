package dev.ordinal.billing;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ordinal.billing.db.tables.records.InvoiceRecord;
import dev.ordinal.messaging.outbox.Outbox;
import dev.ordinal.messaging.outbox.OutboxEvent;
import java.time.Clock;
import org.jooq.DSLContext;

/**
 * Billing's own events, written to its outbox in the transaction that changes the invoice: {@code
 * InvoiceIssued} when the integrator holds the number, {@code InvoiceVoided} when a number is
 * voided with a reason. Both go to {@code <prefix>.invoice}, keyed by order id, and carry the
 * invoice id, series and number, so a reader (the invariant monitor) accounts for every number of a
 * series.
 */
final class InvoiceEvents {
  static final String AGGREGATE = BillingService.INVOICE_AGGREGATE;
  static final String INVOICE_VOIDED = "InvoiceVoided";
  private static final ObjectMapper JSON = new ObjectMapper();

  private final Outbox outbox;

  InvoiceEvents(Clock clock) {
    this.outbox = new Outbox(clock);
  }

  /** {@code InvoiceIssued} for {@code inv} (numbered), in {@code tx}. */
  void issued(DSLContext tx, InvoiceRecord inv) {
    ObjectNode n = numbered(inv);
    n.put("total", inv.getTotal().toPlainString());
    n.put("currency", inv.getCurrency());
    append(tx, inv, InvoiceIssuer.INVOICE_ISSUED, n);
  }

  /** {@code InvoiceVoided} for {@code inv} (numbered, voided with its reason), in {@code tx}. */
  void voided(DSLContext tx, InvoiceRecord inv) {
    ObjectNode n = numbered(inv);
    n.put("reason", inv.getVoidReason());
    append(tx, inv, INVOICE_VOIDED, n);
  }

  private static ObjectNode numbered(InvoiceRecord inv) {
    ObjectNode n = JSON.createObjectNode();
    n.put("invoiceId", InvoiceNumbering.uuid(inv).toString());
    n.put("orderId", inv.getOrderId().toString());
    n.put("series", inv.getSeries());
    n.put("number", inv.getNumber());
    return n;
  }

  private void append(DSLContext tx, InvoiceRecord inv, String type, ObjectNode payload) {
    outbox.append(
        tx, new OutboxEvent(AGGREGATE, inv.getOrderId().toString(), type, payload.toString()));
  }
}

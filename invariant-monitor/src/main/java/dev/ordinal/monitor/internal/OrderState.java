package dev.ordinal.monitor.internal;

import java.util.ArrayList;
import java.util.List;

/**
 * What the monitor knows of one order: placed, cancelled, its invoices (id and number, as first
 * seen) and which alerts were raised already.
 */
public record OrderState(
    boolean placed,
    boolean cancelled,
    List<SeenInvoice> invoices,
    boolean missingAlerted,
    boolean duplicateAlerted) {

  public record SeenInvoice(String invoiceId, Long number, long firstSeenMs) {}

  static OrderState empty() {
    return new OrderState(false, false, List.of(), false, false);
  }

  OrderState withPlaced() {
    return new OrderState(true, cancelled, invoices, missingAlerted, duplicateAlerted);
  }

  OrderState withCancelled() {
    return new OrderState(placed, true, invoices, missingAlerted, duplicateAlerted);
  }

  OrderState withInvoice(SeenInvoice invoice) {
    List<SeenInvoice> more = new ArrayList<>(invoices);
    more.add(invoice);
    return new OrderState(placed, cancelled, more, missingAlerted, duplicateAlerted);
  }

  OrderState withMissingAlerted() {
    return new OrderState(placed, cancelled, invoices, true, duplicateAlerted);
  }

  OrderState withDuplicateAlerted() {
    return new OrderState(placed, cancelled, invoices, missingAlerted, true);
  }
}

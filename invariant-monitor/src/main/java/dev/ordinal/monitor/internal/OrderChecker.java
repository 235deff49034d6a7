package dev.ordinal.monitor.internal;

import dev.ordinal.monitor.Alert;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueIterator;

/**
 * Per-order invariants: one invoice per placed, not cancelled order within the deadline, never two.
 * The deadline runs from the wall-clock time this monitor first saw the {@code OrderPlaced}, not
 * from the event's own time, so catching up on an old backlog does not report invoices that are
 * only further down the topic. Orders waiting for an invoice are kept in a separate store, so the
 * punctuator scans only those.
 */
public final class OrderChecker extends DeadlineChecker<OrderState, Long> {
  /**
   * @param orderStoreName the state of each order
   * @param pendingStoreName when this monitor first saw each order still waiting for an invoice
   */
  public OrderChecker(
      String orderStoreName, String pendingStoreName, Duration deadline, Duration interval) {
    super(orderStoreName, pendingStoreName, deadline, interval);
  }

  @Override
  void check(String orderId, Event event, long recordTime, long now) {
    OrderState state = states().get(orderId);
    if (state == null) {
      state = OrderState.empty();
    }
    switch (event.type()) {
      case ORDER_PLACED -> {
        if (!state.placed()) {
          state = state.withPlaced();
          if (!state.cancelled() && state.invoices().isEmpty()) {
            index().put(orderId, now);
          }
        }
      }
      case ORDER_CANCELLED -> {
        state = state.withCancelled();
        index().delete(orderId);
      }
      case INVOICE_ISSUED -> state = invoiceIssued(orderId, state, event, recordTime, now);
      case INVOICE_VOIDED -> {
        // a voided number is its series' business (a cancelled order's): no invoice for the order
      }
    }
    states().put(orderId, state);
  }

  private OrderState invoiceIssued(
      String orderId, OrderState state, Event event, long recordTime, long now) {
    index().delete(orderId);
    boolean known =
        state.invoices().stream()
            .anyMatch(
                i ->
                    Objects.equals(i.invoiceId(), event.invoiceId())
                        && Objects.equals(i.number(), event.number()));
    if (known) {
      return state; // the same invoice again (a re-send under a new message id): not a second one
    }
    OrderState next =
        state.withInvoice(new OrderState.SeenInvoice(event.invoiceId(), event.number(), now));
    if (next.invoices().size() > 1 && !next.duplicateAlerted()) {
      List<String> ids = new ArrayList<>();
      next.invoices().forEach(i -> ids.add(i.invoiceId()));
      context()
          .forward(new Record<>(orderId, Alert.duplicateInvoice(orderId, ids, now), recordTime));
      next = next.withDuplicateAlerted();
    }
    return next;
  }

  @Override
  void checkDeadlines(long now) {
    List<String> overdue = new ArrayList<>();
    try (KeyValueIterator<String, Long> it = index().all()) {
      while (it.hasNext()) {
        KeyValue<String, Long> entry = it.next();
        if (now - entry.value > limit().toMillis()) {
          overdue.add(entry.key);
        }
      }
    }
    for (String orderId : overdue) {
      index().delete(orderId);
      OrderState state = states().get(orderId);
      if (state == null || state.missingAlerted()) {
        continue;
      }
      states().put(orderId, state.withMissingAlerted());
      context().forward(new Record<>(orderId, Alert.missingInvoice(orderId, now), now));
    }
  }
}

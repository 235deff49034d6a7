package dev.ordinal.monitor.internal;

import dev.ordinal.monitor.Alert;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.processor.PunctuationType;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * Per-order invariants: one invoice per placed, not cancelled order within the deadline, never two.
 * The deadline runs from the wall-clock time this monitor first saw the {@code OrderPlaced}, not
 * from the event's own time, so catching up on an old backlog does not report invoices that are
 * only further down the topic. Orders waiting for an invoice are kept in a separate store, so the
 * punctuator scans only those.
 */
public final class OrderChecker implements Processor<String, Event, String, Alert> {
  private final String orderStoreName;
  private final String pendingStoreName;
  private final Duration deadline;
  private final Duration interval;
  private ProcessorContext<String, Alert> context;
  private KeyValueStore<String, OrderState> orders;
  private KeyValueStore<String, Long> pending;

  public OrderChecker(
      String orderStoreName, String pendingStoreName, Duration deadline, Duration interval) {
    this.orderStoreName = orderStoreName;
    this.pendingStoreName = pendingStoreName;
    this.deadline = deadline;
    this.interval = interval;
  }

  @Override
  public void init(ProcessorContext<String, Alert> context) {
    this.context = context;
    this.orders = context.getStateStore(orderStoreName);
    this.pending = context.getStateStore(pendingStoreName);
    context.schedule(interval, PunctuationType.WALL_CLOCK_TIME, this::checkDeadlines);
  }

  @Override
  public void process(Record<String, Event> record) {
    Event event = record.value();
    String orderId = record.key();
    long now = context.currentSystemTimeMs();
    OrderState state = orders.get(orderId);
    if (state == null) {
      state = OrderState.empty();
    }
    switch (event.type()) {
      case ORDER_PLACED -> {
        if (!state.placed()) {
          state = state.withPlaced();
          if (!state.cancelled() && state.invoices().isEmpty()) {
            pending.put(orderId, now);
          }
        }
      }
      case ORDER_CANCELLED -> {
        state = state.withCancelled();
        pending.delete(orderId);
      }
      case INVOICE_ISSUED -> state = invoiceIssued(orderId, state, event, record.timestamp(), now);
      case INVOICE_VOIDED -> {
        // a voided number is its series' business (a cancelled order's): no invoice for the order
      }
    }
    orders.put(orderId, state);
  }

  private OrderState invoiceIssued(
      String orderId, OrderState state, Event event, long recordTime, long now) {
    pending.delete(orderId);
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
      context.forward(new Record<>(orderId, Alert.duplicateInvoice(orderId, ids, now), recordTime));
      next = next.withDuplicateAlerted();
    }
    return next;
  }

  private void checkDeadlines(long now) {
    List<String> overdue = new ArrayList<>();
    try (KeyValueIterator<String, Long> it = pending.all()) {
      while (it.hasNext()) {
        KeyValue<String, Long> entry = it.next();
        if (now - entry.value > deadline.toMillis()) {
          overdue.add(entry.key);
        }
      }
    }
    for (String orderId : overdue) {
      pending.delete(orderId);
      OrderState state = orders.get(orderId);
      if (state == null || state.missingAlerted()) {
        continue;
      }
      orders.put(orderId, state.withMissingAlerted());
      context.forward(new Record<>(orderId, Alert.missingInvoice(orderId, now), now));
    }
  }
}

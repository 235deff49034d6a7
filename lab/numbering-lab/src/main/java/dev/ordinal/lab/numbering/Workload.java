package dev.ordinal.lab.numbering;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/** The orders every strategy invoices: the same ids, amounts and cancellations for each. */
record Workload(List<Order> orders) {
  record Order(UUID orderId, BigDecimal total, boolean cancelled) {}

  static Workload of(LabConfig config) {
    List<Order> orders = new ArrayList<>(config.invoices());
    for (int i = 0; i < config.invoices(); i++) {
      orders.add(
          new Order(UUID.randomUUID(), BigDecimal.valueOf(1_000 + 37L * i, 2), config.cancels(i)));
    }
    return new Workload(List.copyOf(orders));
  }

  int cancelled() {
    return (int) orders.stream().filter(Order::cancelled).count();
  }
}

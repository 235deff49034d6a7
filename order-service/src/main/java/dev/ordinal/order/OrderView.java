package dev.ordinal.order;

import java.math.BigDecimal;
import java.time.Instant;
import java.util.List;
import java.util.UUID;

/** An order as stored. */
public record OrderView(
    UUID orderId,
    OrderStatus status,
    String customerId,
    String currency,
    Channel channel,
    String invoiceSeries,
    BigDecimal total,
    List<OrderLine> lines,
    Instant createdAt,
    Instant cancelledAt) {}

package dev.ordinal.order;

import java.time.Instant;
import java.util.UUID;

/**
 * An order that committed, with the message id of its {@code OrderPlaced} event (the outbox row id,
 * which every re-send carries).
 */
public record PlacedOrder(UUID orderId, UUID messageId, NewOrder order, Instant placedAt) {}

package dev.ordinal.order;

import static dev.ordinal.order.db.Tables.ORDERS;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ordinal.messaging.Migrations;
import dev.ordinal.messaging.Outbox;
import dev.ordinal.messaging.OutboxEvent;
import java.time.Clock;
import java.time.OffsetDateTime;
import java.util.UUID;
import javax.sql.DataSource;
import org.jooq.DSLContext;

/**
 * Places orders. Each order row and its {@code OrderPlaced} outbox row are written in one
 * transaction: both commit or neither does.
 */
public final class OrderService {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final DSLContext dsl;
  private final Outbox outbox;
  private final Clock clock;

  public OrderService(DSLContext dsl, Clock clock) {
    this.dsl = dsl;
    this.clock = clock;
    this.outbox = new Outbox(clock);
  }

  /** Creates or updates order-service's tables (outbox and orders) in {@code schema}. */
  public static void migrate(DataSource dataSource, String schema) {
    Migrations.applyOutbox(dataSource, schema);
    Migrations.apply(dataSource, schema, "classpath:db/order", "flyway_history_order");
  }

  /** Places {@code order} in its own transaction. */
  public PlacedOrder place(NewOrder order) {
    return dsl.transactionResult(c -> place(c.dsl(), order));
  }

  /**
   * Writes {@code order} and its event using {@code tx}, the caller's transaction: if the caller
   * rolls back, neither the order nor its event exists.
   */
  public PlacedOrder place(DSLContext tx, NewOrder order) {
    UUID orderId = UUID.randomUUID();
    OffsetDateTime now = OffsetDateTime.now(clock);
    tx.insertInto(ORDERS)
        .set(ORDERS.ID, orderId)
        .set(ORDERS.CUSTOMER_ID, order.customerId())
        .set(ORDERS.CURRENCY, order.currency())
        .set(ORDERS.TOTAL, order.total())
        .set(ORDERS.CREATED_AT, now)
        .execute();
    UUID messageId =
        outbox.append(
            tx,
            new OutboxEvent(
                OrderEvents.AGGREGATE_TYPE,
                orderId.toString(),
                OrderEvents.ORDER_PLACED,
                placedPayload(orderId, order, now)));
    return new PlacedOrder(orderId, messageId);
  }

  private static String placedPayload(UUID orderId, NewOrder order, OffsetDateTime at) {
    ObjectNode n = JSON.createObjectNode();
    n.put("orderId", orderId.toString());
    n.put("customerId", order.customerId());
    n.put("currency", order.currency());
    n.put("total", order.total().toPlainString());
    n.put("placedAt", at.toInstant().toString());
    return n.toString();
  }
}

package dev.ordinal.order.internal;

import static dev.ordinal.order.db.Tables.IDEMPOTENCY_KEY;

import dev.ordinal.order.OrderService;
import dev.ordinal.order.PlacedOrder;
import dev.ordinal.order.db.tables.records.IdempotencyKeyRecord;
import java.time.Clock;
import java.time.OffsetDateTime;
import org.jooq.DSLContext;

/**
 * Places an order at most once per {@code Idempotency-Key}, in the order's own transaction: the key
 * row is inserted first ({@code ON CONFLICT DO NOTHING}); a concurrent request with the same key
 * waits on that row until the first one commits, then reads the stored response. If the first one
 * rolls back, the second one places the order. A key reused with a different body is refused and
 * writes nothing.
 */
public final class IdempotentPlacement {
  public static final int MAX_KEY_LENGTH = 255;

  private final OrderService orders;
  private final Clock clock;

  public IdempotentPlacement(OrderService orders, Clock clock) {
    this.orders = orders;
    this.clock = clock;
  }

  /** An HTTP answer: status, JSON body, and whether it is the replay of an earlier one. */
  public record Response(int status, String body, boolean replayed) {}

  public Response place(String key, OrderRequests.Parsed request, String traceparent) {
    return orders
        .dsl()
        .transactionResult(
            c -> {
              DSLContext tx = c.dsl();
              int claimed =
                  tx.insertInto(IDEMPOTENCY_KEY)
                      .set(IDEMPOTENCY_KEY.IDEMPOTENCY_KEY_, key)
                      .set(IDEMPOTENCY_KEY.REQUEST_HASH, request.hash())
                      .set(IDEMPOTENCY_KEY.CREATED_AT, OffsetDateTime.now(clock))
                      .onConflictDoNothing()
                      .execute();
              if (claimed == 0) {
                return replay(tx, key, request);
              }
              PlacedOrder placed = orders.place(tx, request.order(), traceparent);
              String body = OrderJson.placed(placed);
              tx.update(IDEMPOTENCY_KEY)
                  .set(IDEMPOTENCY_KEY.RESPONSE_STATUS, 201)
                  .set(IDEMPOTENCY_KEY.RESPONSE_BODY, body)
                  .set(IDEMPOTENCY_KEY.ORDER_ID, placed.orderId())
                  .where(IDEMPOTENCY_KEY.IDEMPOTENCY_KEY_.eq(key))
                  .execute();
              return new Response(201, body, false);
            });
  }

  private static Response replay(DSLContext tx, String key, OrderRequests.Parsed request) {
    IdempotencyKeyRecord earlier =
        tx.selectFrom(IDEMPOTENCY_KEY).where(IDEMPOTENCY_KEY.IDEMPOTENCY_KEY_.eq(key)).fetchOne();
    if (earlier == null || earlier.getResponseStatus() == null) {
      // cannot happen: the row and its response commit together
      throw new IllegalStateException("Idempotency key " + key + " has no stored response");
    }
    if (!earlier.getRequestHash().equals(request.hash())) {
      throw Problem.invalid(
              "Idempotency-Key",
              "This Idempotency-Key was used for a different request body; use a new key for a"
                  + " new order.")
          .toException();
    }
    return new Response(earlier.getResponseStatus(), earlier.getResponseBody(), true);
  }
}

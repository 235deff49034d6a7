package dev.ordinal.order.internal;

import static dev.ordinal.order.db.Tables.IDEMPOTENCY_KEY;

import dev.ordinal.order.OrderService;
import dev.ordinal.order.db.tables.records.IdempotencyKeyRecord;
import java.time.Clock;
import java.time.OffsetDateTime;
import java.util.UUID;
import org.jooq.exception.DataAccessException;
import org.postgresql.util.PSQLException;
import org.postgresql.util.ServerErrorMessage;

/**
 * Places an order at most once per {@code Idempotency-Key} of one owner (the caller's subject: two
 * callers' keys never meet, so the same key from two of them places two orders). The key row, with
 * the response, is written by the order's own statement (the response is known before the write:
 * the order's and the event's ids are made here), so a keyed order is one round trip like any
 * other. A concurrent request with the same key waits on that row until the first one ends: when
 * the first commits, the second's statement fails on the key, writes nothing, and the stored
 * response is read and returned; when the first rolls back, the second places the order. A key
 * reused with a different body is refused and writes nothing.
 *
 * @param orders places the order and writes the key row in its statement
 * @param clock stamps the key row's {@code created_at}, from which its retention counts
 */
public record IdempotentPlacement(OrderService orders, Clock clock) {
  public static final int MAX_KEY_LENGTH = 255;

  /** The key table's primary key (owner, key): a violation means the owner used the key before. */
  static final String KEY_CONSTRAINT = "idempotency_key_pkey";

  /**
   * An HTTP answer: status, JSON body, whether it is the replay of an earlier one, and the order it
   * placed.
   */
  public record Response(int status, String body, boolean replayed, UUID orderId) {}

  /** Places {@code request} for {@code owner} once per {@code key} of that owner. */
  public Response place(
      String owner, String key, OrderRequests.Parsed request, String traceparent) {
    // a stored key whose row retention deletes between the failed write and the read is asked
    // for once more: the second try places the order
    Response r = placeOrReplay(owner, key, request, traceparent);
    if (r == null) {
      r = placeOrReplay(owner, key, request, traceparent);
    }
    if (r == null) {
      throw new IllegalStateException(
          "Idempotency key " + key + " was taken twice but has no stored response");
    }
    return r;
  }

  /**
   * The new order's response, or the stored one when the key was taken; null when the key was taken
   * but its row is gone by the time it is read.
   */
  private Response placeOrReplay(
      String owner, String key, OrderRequests.Parsed request, String traceparent) {
    String[] body = new String[1];
    UUID[] placedId = new UUID[1];
    try {
      orders.place(
          owner,
          request.order(),
          traceparent,
          placed -> {
            body[0] = OrderJson.placed(placed);
            placedId[0] = placed.orderId();
            return orders
                .dsl()
                .insertInto(IDEMPOTENCY_KEY)
                .set(IDEMPOTENCY_KEY.OWNER, owner)
                .set(IDEMPOTENCY_KEY.IDEMPOTENCY_KEY_, key)
                .set(IDEMPOTENCY_KEY.REQUEST_HASH, request.hash())
                .set(IDEMPOTENCY_KEY.RESPONSE_STATUS, 201)
                .set(IDEMPOTENCY_KEY.RESPONSE_BODY, body[0])
                .set(IDEMPOTENCY_KEY.ORDER_ID, placed.orderId())
                .set(IDEMPOTENCY_KEY.CREATED_AT, OffsetDateTime.now(clock))
                .returningResult(IDEMPOTENCY_KEY.IDEMPOTENCY_KEY_);
          });
      return new Response(201, body[0], false, placedId[0]);
    } catch (DataAccessException e) {
      if (!keyTaken(e)) {
        throw e;
      }
      return replay(owner, key, request);
    }
  }

  /** True when {@code e} is the key's primary key refusing a second row. */
  static boolean keyTaken(DataAccessException e) {
    PSQLException p = e.getCause(PSQLException.class);
    if (p == null || !"23505".equals(p.getSQLState())) {
      return false;
    }
    ServerErrorMessage m = p.getServerErrorMessage();
    return m != null && KEY_CONSTRAINT.equals(m.getConstraint());
  }

  private Response replay(String owner, String key, OrderRequests.Parsed request) {
    IdempotencyKeyRecord earlier =
        orders
            .dsl()
            .selectFrom(IDEMPOTENCY_KEY)
            .where(IDEMPOTENCY_KEY.OWNER.eq(owner))
            .and(IDEMPOTENCY_KEY.IDEMPOTENCY_KEY_.eq(key))
            .fetchOne();
    if (earlier == null) {
      return null;
    }
    if (!earlier.getRequestHash().equals(request.hash())) {
      throw Problem.invalid(
              "Idempotency-Key",
              "This Idempotency-Key was used for a different request body; use a new key for a"
                  + " new order.")
          .toException();
    }
    return new Response(
        earlier.getResponseStatus(), earlier.getResponseBody(), true, earlier.getOrderId());
  }
}

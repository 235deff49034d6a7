package dev.ordinal.order;

import static dev.ordinal.order.db.Tables.ORDERS;
import static dev.ordinal.order.db.Tables.ORDER_LINE;

import dev.ordinal.contracts.EventCodec;
import dev.ordinal.contracts.EventType;
import dev.ordinal.messaging.db.Migrations;
import dev.ordinal.messaging.outbox.Outbox;
import dev.ordinal.messaging.outbox.OutboxEvent;
import dev.ordinal.order.db.tables.records.OrdersRecord;
import java.time.Clock;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import java.util.function.Function;
import javax.sql.DataSource;
import org.jooq.CaseConditionStep;
import org.jooq.CommonTableExpression;
import org.jooq.Condition;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.Record;
import org.jooq.Record1;
import org.jooq.Result;
import org.jooq.ResultQuery;
import org.jooq.impl.DSL;

/**
 * Places and cancels orders. Every state change and its event ({@code OrderPlaced}, {@code
 * OrderCancelled}) are written in one transaction: both commit or neither does. Transitions are
 * guarded in SQL ({@code UPDATE ... WHERE status = 'PLACED'}), so a repeated or late request never
 * moves an order backwards.
 *
 * <p>Every order has an owner: the subject of the API caller that placed it, which alone may read
 * and cancel it through the API ({@link #find(String, UUID)}, {@link #cancel(String, UUID, String,
 * String)}). The methods without an owner place orders owned by {@link ApiAuth#ANONYMOUS}, and find
 * and cancel orders of any owner: they are for the process itself (the demo, tests), not callers.
 */
public final class OrderService {

  private final DSLContext dsl;
  private final Outbox outbox;
  private final Clock clock;

  public OrderService(DSLContext dsl, Clock clock) {
    this(dsl, new Outbox(clock), clock);
  }

  public OrderService(DSLContext dsl, Outbox outbox, Clock clock) {
    this.dsl = dsl;
    this.outbox = outbox;
    this.clock = clock;
  }

  /** Creates or updates order-service's tables (outbox, orders, lines, keys) in {@code schema}. */
  public static void migrate(DataSource dataSource, String schema) {
    Migrations.applyOutbox(dataSource, schema);
    Migrations.apply(dataSource, schema, "classpath:db/order", "flyway_history_order");
  }

  public DSLContext dsl() {
    return dsl;
  }

  /** Places {@code order}, owned by {@link ApiAuth#ANONYMOUS}, in its own transaction. */
  public PlacedOrder place(NewOrder order) {
    return place(ApiAuth.ANONYMOUS, order, null, null);
  }

  /**
   * Places {@code order} for {@code owner} in its own transaction; {@code traceparent} (W3C trace
   * context of the request, or null) travels with the event. {@code alsoInsert} (or null) adds one
   * more row written by the same statement: it builds its insert (a {@code RETURNING} one) from the
   * order about to be placed, so a row that stores the response (an idempotency key) costs no round
   * trip of its own. When that insert fails, nothing of the order exists.
   */
  public PlacedOrder place(
      String owner,
      NewOrder order,
      String traceparent,
      Function<PlacedOrder, ResultQuery<?>> alsoInsert) {
    if (outbox.deletesOnWrite()) {
      return dsl.transactionResult(c -> place(c.dsl(), owner, order, traceparent, alsoInsert));
    }
    // one statement is atomic on its own: without an explicit transaction the whole write is one
    // round trip
    return place(dsl, owner, order, traceparent, alsoInsert);
  }

  /**
   * Writes {@code order} (owned by {@link ApiAuth#ANONYMOUS}), its lines and its {@code
   * OrderPlaced} event using {@code tx}, the caller's transaction: if the caller rolls back, none
   * of it exists.
   */
  public PlacedOrder place(DSLContext tx, NewOrder order) {
    return place(tx, ApiAuth.ANONYMOUS, order, null, null);
  }

  /**
   * As {@link #place(DSLContext, NewOrder)}, for {@code owner}, with the request's W3C trace
   * context (or null) and {@code alsoInsert} (or null) as in {@link #place(String, NewOrder,
   * String, Function)}. The order, its lines, the outbox row and that row are ONE statement
   * (data-modifying CTEs), plus the outbox's delete in {@code DELETE_ON_WRITE} mode.
   */
  public PlacedOrder place(
      DSLContext tx,
      String owner,
      NewOrder order,
      String traceparent,
      Function<PlacedOrder, ResultQuery<?>> alsoInsert) {
    UUID orderId = UUID.randomUUID();
    OffsetDateTime now = OffsetDateTime.now(clock);
    Outbox.Prepared event =
        outbox.prepare(
            tx,
            new OutboxEvent(
                OrderEvents.aggregateType(order.channel()),
                orderId.toString(),
                EventType.ORDER_PLACED.wireName(),
                EventCodec.toJson(OrderEvents.placed(orderId, order, now.toInstant())),
                traceparent));
    PlacedOrder placed = new PlacedOrder(orderId, event.id(), order, now.toInstant());
    var statement =
        tx.with(DSL.name("placed_order").as(insertOrder(tx, orderId, owner, order, now)))
            .with(DSL.name("placed_lines").as(insertLines(tx, orderId, order)))
            .with(DSL.name("placed_event").as(event.insert()));
    if (alsoInsert != null) {
      statement = statement.with(DSL.name("placed_also").as(alsoInsert.apply(placed)));
    }
    statement.selectOne().execute();
    if (outbox.deletesOnWrite()) {
      outbox.deleteAgain(tx, event.id());
    }
    return placed;
  }

  private static ResultQuery<Record1<UUID>> insertOrder(
      DSLContext tx, UUID orderId, String owner, NewOrder order, OffsetDateTime now) {
    return tx.insertInto(ORDERS)
        .set(ORDERS.ID, orderId)
        .set(ORDERS.OWNER, owner)
        .set(ORDERS.CUSTOMER_ID, order.customerId())
        .set(ORDERS.CURRENCY, order.currency())
        .set(ORDERS.TOTAL, order.total())
        .set(ORDERS.CHANNEL, order.channel().wireName())
        .set(ORDERS.INVOICE_SERIES, order.invoiceSeries())
        .set(ORDERS.STATUS, OrderStatus.PLACED.name())
        .set(ORDERS.CREATED_AT, now)
        .returningResult(ORDERS.ID);
  }

  private static ResultQuery<Record1<Integer>> insertLines(
      DSLContext tx, UUID orderId, NewOrder order) {
    var insert =
        tx.insertInto(
            ORDER_LINE,
            ORDER_LINE.ORDER_ID,
            ORDER_LINE.LINE_NO,
            ORDER_LINE.SKU,
            ORDER_LINE.QUANTITY,
            ORDER_LINE.UNIT_PRICE);
    List<OrderLine> lines = order.lines();
    for (int i = 0; i < lines.size(); i++) {
      OrderLine l = lines.get(i);
      insert = insert.values(orderId, i + 1, l.sku(), l.quantity(), l.unitPrice());
    }
    return insert.returningResult(ORDER_LINE.LINE_NO);
  }

  /** The order, with its lines, if it exists, whoever owns it. */
  public Optional<OrderView> find(UUID orderId) {
    return find(dsl, null, orderId);
  }

  /** The order, with its lines, if it exists and {@code owner} owns it. */
  public Optional<OrderView> find(String owner, UUID orderId) {
    return find(dsl, Objects.requireNonNull(owner, "owner"), orderId);
  }

  /** The order if it exists and {@code owner} (null: anyone) owns it. */
  private Optional<OrderView> find(DSLContext ctx, String owner, UUID orderId) {
    OrdersRecord o =
        ctx.selectFrom(ORDERS).where(ORDERS.ID.eq(orderId)).and(ownedBy(owner)).fetchOne();
    if (o == null) {
      return Optional.empty();
    }
    List<OrderLine> lines =
        ctx.selectFrom(ORDER_LINE)
            .where(ORDER_LINE.ORDER_ID.eq(orderId))
            .orderBy(ORDER_LINE.LINE_NO)
            .fetch(l -> new OrderLine(l.getSku(), l.getQuantity(), l.getUnitPrice()));
    return Optional.of(
        new OrderView(
            o.getId(),
            OrderStatus.valueOf(o.getStatus()),
            o.getCustomerId(),
            o.getCurrency(),
            Channel.fromWire(o.getChannel()).orElseThrow(),
            o.getInvoiceSeries(),
            o.getTotal(),
            lines,
            o.getCreatedAt().toInstant(),
            o.getCancelledAt() == null ? null : o.getCancelledAt().toInstant()));
  }

  /**
   * Cancels a placed order and writes {@code OrderCancelled}, in one transaction. Cancelling an
   * order that is already cancelled or has shipped changes nothing and says why.
   *
   * @param reason free text kept in the event, or null
   */
  public CancelOutcome cancel(UUID orderId, String reason) {
    return cancelOwned(null, orderId, reason, null);
  }

  /**
   * As {@link #cancel(UUID, String)}, for an order that {@code owner} owns (another's is {@code
   * NOT_FOUND}, and changes nothing), with the request's W3C trace context (or null). The guarded
   * update, the event and the read of the cancelled order with its lines are ONE statement
   * (data-modifying CTEs; the event's topic follows the order's channel in SQL), plus the outbox's
   * delete in {@code DELETE_ON_WRITE} mode; only an order that was not {@code PLACED} costs a
   * second look, to say why.
   */
  public CancelOutcome cancel(String owner, UUID orderId, String reason, String traceparent) {
    return cancelOwned(Objects.requireNonNull(owner, "owner"), orderId, reason, traceparent);
  }

  private CancelOutcome cancelOwned(String owner, UUID orderId, String reason, String traceparent) {
    if (outbox.deletesOnWrite()) {
      return dsl.transactionResult(c -> cancel(c.dsl(), owner, orderId, reason, traceparent));
    }
    return cancel(dsl, owner, orderId, reason, traceparent);
  }

  /** {@code owner} null: any owner's order. */
  private CancelOutcome cancel(
      DSLContext tx, String owner, UUID orderId, String reason, String traceparent) {
    OffsetDateTime now = OffsetDateTime.now(clock);
    CommonTableExpression<?> cancelled =
        DSL.name("cancelled_order")
            .as(
                tx.update(ORDERS)
                    .set(ORDERS.STATUS, OrderStatus.CANCELLED.name())
                    .set(ORDERS.CANCELLED_AT, now)
                    .where(ORDERS.ID.eq(orderId))
                    .and(ownedBy(owner))
                    .and(ORDERS.STATUS.eq(OrderStatus.PLACED.name()))
                    .returningResult(
                        ORDERS.ID,
                        ORDERS.CUSTOMER_ID,
                        ORDERS.CURRENCY,
                        ORDERS.CHANNEL,
                        ORDERS.INVOICE_SERIES,
                        ORDERS.TOTAL,
                        ORDERS.CREATED_AT,
                        ORDERS.CANCELLED_AT));
    Outbox.Prepared event =
        outbox.prepareFrom(
            tx,
            new OutboxEvent(
                LONGEST_AGGREGATE_TYPE,
                orderId.toString(),
                EventType.ORDER_CANCELLED.wireName(),
                EventCodec.toJson(OrderEvents.cancelled(orderId, reason, now.toInstant())),
                traceparent),
            cancelled,
            aggregateTypeOf(cancelled.field(ORDERS.CHANNEL)));
    Result<Record> rows =
        tx.with(cancelled)
            .with(DSL.name("cancelled_event").as(event.insert()))
            .select(cancelled.fields())
            .select(ORDER_LINE.SKU, ORDER_LINE.QUANTITY, ORDER_LINE.UNIT_PRICE)
            .from(cancelled)
            .leftJoin(ORDER_LINE)
            .on(ORDER_LINE.ORDER_ID.eq(cancelled.field(ORDERS.ID)))
            .orderBy(ORDER_LINE.LINE_NO)
            .fetch();
    if (!rows.isEmpty()) {
      if (outbox.deletesOnWrite()) {
        outbox.deleteAgain(tx, event.id());
      }
      return new CancelOutcome(
          CancelOutcome.Result.CANCELLED,
          Optional.of(cancelledView(rows, cancelled)),
          Optional.of(event.id()));
    }
    Optional<OrderView> current = find(tx, owner, orderId);
    CancelOutcome.Result why =
        current
            .map(
                o ->
                    o.status() == OrderStatus.SHIPPED
                        ? CancelOutcome.Result.ALREADY_SHIPPED
                        : CancelOutcome.Result.ALREADY_CANCELLED)
            .orElse(CancelOutcome.Result.NOT_FOUND);
    return new CancelOutcome(why, current, Optional.empty());
  }

  /** Orders of {@code owner}; of anyone when it is null. */
  private static Condition ownedBy(String owner) {
    return owner == null ? DSL.noCondition() : ORDERS.OWNER.eq(owner);
  }

  private static final String LONGEST_AGGREGATE_TYPE =
      Arrays.stream(Channel.values())
          .map(OrderEvents::aggregateType)
          .max(Comparator.comparingInt(String::length))
          .orElseThrow();

  /** {@link OrderEvents#aggregateType} in SQL, over a channel column. */
  private static Field<String> aggregateTypeOf(Field<String> channel) {
    CaseConditionStep<String> type = null;
    for (Channel c : Channel.values()) {
      Field<String> t = DSL.inline(OrderEvents.aggregateType(c));
      type =
          type == null
              ? DSL.when(channel.eq(c.wireName()), t)
              : type.when(channel.eq(c.wireName()), t);
    }
    return type;
  }

  private static OrderView cancelledView(Result<Record> rows, CommonTableExpression<?> o) {
    Record first = rows.get(0);
    List<OrderLine> lines = new ArrayList<>();
    for (Record r : rows) {
      if (r.get(ORDER_LINE.SKU) != null) {
        lines.add(
            new OrderLine(
                r.get(ORDER_LINE.SKU), r.get(ORDER_LINE.QUANTITY), r.get(ORDER_LINE.UNIT_PRICE)));
      }
    }
    return new OrderView(
        first.get(o.field(ORDERS.ID)),
        OrderStatus.CANCELLED,
        first.get(o.field(ORDERS.CUSTOMER_ID)),
        first.get(o.field(ORDERS.CURRENCY)),
        Channel.fromWire(first.get(o.field(ORDERS.CHANNEL))).orElseThrow(),
        first.get(o.field(ORDERS.INVOICE_SERIES)),
        first.get(o.field(ORDERS.TOTAL)),
        lines,
        first.get(o.field(ORDERS.CREATED_AT)).toInstant(),
        first.get(o.field(ORDERS.CANCELLED_AT)).toInstant());
  }
}

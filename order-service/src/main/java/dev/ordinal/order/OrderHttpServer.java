package dev.ordinal.order;

import dev.ordinal.messaging.Servers;
import dev.ordinal.order.internal.Authenticator;
import dev.ordinal.order.internal.BodyLimit;
import dev.ordinal.order.internal.Caller;
import dev.ordinal.order.internal.IdempotentPlacement;
import dev.ordinal.order.internal.OrderJson;
import dev.ordinal.order.internal.OrderRequests;
import dev.ordinal.order.internal.Problem;
import dev.ordinal.runtime.LogContext;
import dev.ordinal.runtime.Tracing;
import io.javalin.Javalin;
import io.javalin.http.Context;
import io.javalin.http.Handler;
import io.javalin.http.HttpResponseException;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.jetty.JettyServerThreadPoolMetrics;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.context.Scope;
import java.time.Clock;
import java.util.Locale;
import java.util.UUID;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;

/**
 * The order-service HTTP API (Javalin), JSON in and out, errors as RFC 9457 problem details that
 * name the offending field. Nothing is written for a refused request.
 *
 * <p>Each request is first authenticated as {@link ApiAuth} says: without a valid bearer token it
 * gets 401 with {@code WWW-Authenticate}; with one for another audience, or without the scope the
 * endpoint needs, 403. The caller's subject owns what it places: its idempotency keys are its own,
 * and another caller's order is answered as unknown (404), so ids cannot be probed.
 *
 * <ul>
 *   <li>{@code POST /orders} ({@link ApiAuth#SCOPE_WRITE}): 201 with the order; honours {@code
 *       Idempotency-Key} (a retry with the same key and body returns the original response with
 *       {@code Idempotent-Replayed: true}; the same key with another body gets 422)
 *   <li>{@code GET /orders/{id}} ({@link ApiAuth#SCOPE_READ}): 200 or 404
 *   <li>{@code POST /orders/{id}/cancel} ({@link ApiAuth#SCOPE_CANCEL}): 200 when cancelled; 409
 *       when already cancelled or shipped (nothing changes); 404 when unknown
 * </ul>
 *
 * <p>When PostgreSQL does not answer (refused, a broken connection, no connection from the pool
 * within its timeout) a request gets 503 with {@code Retry-After: 5}; when the keys to check tokens
 * with cannot be fetched, likewise.
 *
 * <p>Health and metrics are not served here but on the service's management port ({@link
 * OrderServiceApp}).
 */
public final class OrderHttpServer implements AutoCloseable {
  public static final int DEFAULT_PORT = 8080;
  public static final int MAX_BODY_BYTES = 64 * 1024;
  public static final String IDEMPOTENCY_KEY = "Idempotency-Key";
  public static final String TRACEPARENT = "traceparent";
  public static final String AUTHORIZATION = "Authorization";

  /** Seconds a client is told to wait ({@code Retry-After}) when the database does not answer. */
  public static final int RETRY_AFTER_SECONDS = 5;

  /** The line logged (and printed by the command) when the API runs with {@code --auth none}. */
  public static final String UNAUTHENTICATED =
      "The order API is unauthenticated (--auth none): every caller is '"
          + ApiAuth.ANONYMOUS
          + "' and may read and cancel every order; use --auth jwt beyond local use.";

  private static final java.util.regex.Pattern TRACEPARENT_FORMAT =
      java.util.regex.Pattern.compile("[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}");

  private static final Logger log = LoggerFactory.getLogger(OrderHttpServer.class);
  private static final String STARTED = "ordinal.started";
  private static final int MIN_THREADS = 8;
  private static final int IDLE_THREAD_TIMEOUT_MS = 60_000;

  private final OrderService orders;
  private final ApiAuth auth;
  private final Authenticator authenticator;
  private final IdempotentPlacement idempotent;
  private final MeterRegistry registry;
  private final Counter placed;
  private final Counter replays;
  private final Counter cancelled;
  private Javalin app;

  /**
   * An API over {@code orders}, its callers authenticated as {@code auth} says.
   *
   * @throws dev.ordinal.messaging.ConfigurationException when {@code auth}'s JWKS file cannot be
   *     used
   */
  public OrderHttpServer(OrderService orders, ApiAuth auth, MeterRegistry registry, Clock clock) {
    this(orders, auth, Authenticator.of(auth, clock), registry, clock);
  }

  /** As the public constructor, with {@code auth}'s authenticator made beforehand. */
  OrderHttpServer(
      OrderService orders,
      ApiAuth auth,
      Authenticator authenticator,
      MeterRegistry registry,
      Clock clock) {
    this.orders = orders;
    this.auth = auth;
    this.authenticator = authenticator;
    this.idempotent = new IdempotentPlacement(orders, clock);
    this.registry = registry;
    this.placed =
        Counter.builder("ordinal.orders.placed").description("Orders placed").register(registry);
    this.replays =
        Counter.builder("ordinal.orders.idempotent.replays")
            .description("Requests answered from an earlier response with the same key")
            .register(registry);
    this.cancelled =
        Counter.builder("ordinal.orders.cancelled")
            .description("Orders cancelled")
            .register(registry);
  }

  /** Starts listening on {@code port} (0 picks a free one) on all interfaces. */
  public synchronized OrderHttpServer start(int port) {
    return start(null, port);
  }

  /** Starts listening on {@code host} (null: all interfaces) and {@code port} (0: a free one). */
  public synchronized OrderHttpServer start(String host, int port) {
    return start(host, port, OrderServiceSettings.DEFAULT_HTTP_THREADS);
  }

  /**
   * Starts listening on {@code host} (null: all interfaces) and {@code port} (0: a free one), with
   * at most {@code maxThreads} in Jetty's pool (threads named {@code order-http-N}); the pool's
   * size, busy threads and queued jobs are the {@code jetty.threads.*} meters.
   */
  public synchronized OrderHttpServer start(String host, int port, int maxThreads) {
    QueuedThreadPool pool =
        new QueuedThreadPool(maxThreads, Math.min(MIN_THREADS, maxThreads), IDLE_THREAD_TIMEOUT_MS);
    pool.setName("order-http");
    new JettyServerThreadPoolMetrics(pool, Tags.empty()).bindTo(registry);
    app =
        Javalin.create(
            config -> {
              config.jetty.threadPool = pool;
              config.http.maxRequestSize = MAX_BODY_BYTES;
              config.jetty.modifyServletContextHandler(h -> BodyLimit.install(h, MAX_BODY_BYTES));
              config.startup.showJavalinBanner = false;
              config.routes.before(
                  ctx -> {
                    ctx.attribute(STARTED, System.nanoTime());
                    MDC.remove(LogContext.TRACE_ID); // nothing of an earlier request on the thread
                  });
              config.routes.post("/orders", ctx -> traced(ctx, "POST /orders", this::placeOrder));
              config.routes.get("/orders/{id}", this::getOrder);
              config.routes.post(
                  "/orders/{id}/cancel",
                  ctx -> traced(ctx, "POST /orders/{id}/cancel", this::cancelOrder));
              config.routes.exception(
                  Problem.Exception.class,
                  (e, ctx) -> {
                    e.headers().forEach(ctx::header);
                    problem(ctx, e.problem());
                  });
              config.routes.exception(
                  HttpResponseException.class,
                  (e, ctx) ->
                      problem(
                          ctx,
                          new Problem(
                              e.getStatus(),
                              e.getStatus() == 413 ? "Body too large" : "Request refused",
                              e.getStatus() == 413
                                  ? "The request body is larger than " + MAX_BODY_BYTES + " bytes."
                                  : e.getMessage(),
                              e.getStatus() == 413 ? "body" : null)));
              config.routes.exception(
                  Exception.class,
                  (e, ctx) -> {
                    if (Servers.isUnavailable(e)) {
                      log.warn(
                          "{} {}: the database does not answer: {}",
                          ctx.method(),
                          ctx.path(),
                          e.toString());
                      ctx.header("Retry-After", Integer.toString(RETRY_AFTER_SECONDS));
                      problem(
                          ctx,
                          Problem.unavailable(
                              "The database does not answer; try again in "
                                  + RETRY_AFTER_SECONDS
                                  + " s (with the same Idempotency-Key, an order is placed at"
                                  + " most once)."));
                      return;
                    }
                    log.error("{} {} failed", ctx.method(), ctx.path(), e);
                    problem(
                        ctx,
                        new Problem(
                            500,
                            "Internal error",
                            "The request failed; nothing was"
                                + " written. The server log has the details.",
                            null));
                  });
              config.routes.error(
                  404,
                  ctx -> {
                    if (ctx.result() == null || ctx.result().isEmpty()) {
                      problem(ctx, Problem.notFound(null, "No such endpoint: " + ctx.path()));
                    }
                  });
              config.routes.after(this::recordRequest);
            });
    if (host == null) {
      app.start(port);
    } else {
      app.start(host, port);
    }
    log.info("order-service listening on {} port {}", host == null ? "*" : host, app.port());
    if (auth.isNone()) {
      log.warn(UNAUTHENTICATED);
    }
    return this;
  }

  public int port() {
    return app.port();
  }

  /** The caller, authenticated and granted {@code scope}; refused otherwise (401, 403, 503). */
  private Caller caller(Context ctx, String scope) {
    Caller c = authenticator.authenticate(ctx.header(AUTHORIZATION));
    c.require(scope);
    return c;
  }

  private void placeOrder(Context ctx) {
    Caller caller = caller(ctx, ApiAuth.SCOPE_WRITE);
    requireJson(ctx);
    String key = idempotencyKey(ctx);
    byte[] body = ctx.bodyAsBytes();
    if (body.length > MAX_BODY_BYTES) {
      throw new Problem(
              413,
              "Body too large",
              "The request body is larger than " + MAX_BODY_BYTES + " bytes.",
              "body")
          .toException();
    }
    String traceparent = Tracing.traceparent(Span.current());
    OrderRequests.Parsed request = OrderRequests.parse(body);
    if (key == null) {
      PlacedOrder p = orders.place(caller.subject(), request.order(), traceparent, null);
      placed.increment();
      log.info("Order {} placed", p.orderId());
      json(ctx, 201, OrderJson.placed(p));
      return;
    }
    IdempotentPlacement.Response r = idempotent.place(caller.subject(), key, request, traceparent);
    if (r.replayed()) {
      replays.increment();
      ctx.header("Idempotent-Replayed", "true");
      log.info("Order {}: answered again for its Idempotency-Key", r.orderId());
    } else {
      placed.increment();
      log.info("Order {} placed", r.orderId());
    }
    json(ctx, r.status(), r.body());
  }

  private void getOrder(Context ctx) {
    Caller caller = caller(ctx, ApiAuth.SCOPE_READ);
    UUID id = orderId(ctx);
    OrderView o =
        orders
            .find(caller.subject(), id)
            .orElseThrow(() -> Problem.notFound("id", "No order has id " + id + ".").toException());
    json(ctx, 200, OrderJson.view(o));
  }

  private void cancelOrder(Context ctx) {
    Caller caller = caller(ctx, ApiAuth.SCOPE_CANCEL);
    UUID id = orderId(ctx);
    String reason = OrderRequests.cancelReason(ctx.bodyAsBytes());
    CancelOutcome outcome =
        orders.cancel(caller.subject(), id, reason, Tracing.traceparent(Span.current()));
    switch (outcome.result()) {
      case CANCELLED -> {
        cancelled.increment();
        log.info("Order {} cancelled", id);
        json(ctx, 200, OrderJson.view(outcome.order().orElseThrow()));
      }
      case ALREADY_CANCELLED ->
          throw Problem.conflict("Order " + id + " is already cancelled; nothing changed.")
              .toException();
      case ALREADY_SHIPPED ->
          throw Problem.conflict(
                  "Order " + id + " has shipped and can no longer be cancelled; nothing changed.")
              .toException();
      case NOT_FOUND -> throw Problem.notFound("id", "No order has id " + id + ".").toException();
    }
  }

  private static void requireJson(Context ctx) {
    String type = ctx.contentType();
    if (type == null || !type.toLowerCase(Locale.ROOT).startsWith("application/json")) {
      throw new Problem(
              415,
              "Unsupported media type",
              "Send the order as JSON with Content-Type: application/json.",
              "Content-Type")
          .toException();
    }
  }

  private static String idempotencyKey(Context ctx) {
    String key = ctx.header(IDEMPOTENCY_KEY);
    if (key == null) {
      return null;
    }
    if (key.isBlank()
        || key.length() > IdempotentPlacement.MAX_KEY_LENGTH
        || !key.chars().allMatch(c -> c >= 0x21 && c <= 0x7e)) {
      throw Problem.badRequest(
              IDEMPOTENCY_KEY,
              IDEMPOTENCY_KEY
                  + " must be 1 to "
                  + IdempotentPlacement.MAX_KEY_LENGTH
                  + " visible ASCII characters.")
          .toException();
    }
    return key;
  }

  /**
   * Runs {@code handler} in a server span, the child of the request's W3C trace context ({@code
   * traceparent}, {@code tracestate}) and current meanwhile: the outbox row gets its traceparent
   * and tracestate. The span's trace id is in the log context ({@link LogContext#TRACE_ID}) of the
   * request's lines, the exception handlers' included, until the request's {@code after} handler
   * ({@link #recordRequest}) takes it out.
   */
  private static void traced(Context ctx, String name, Handler handler) throws Exception {
    Span span =
        Tracing.start(
            name,
            SpanKind.SERVER,
            Tracing.extract(traceparent(ctx), ctx.header(Tracing.TRACESTATE)));
    if (span.getSpanContext().isValid()) {
      MDC.put(LogContext.TRACE_ID, span.getSpanContext().getTraceId());
    }
    try (Scope current = span.makeCurrent()) {
      handler.handle(ctx);
    } catch (Exception e) {
      span.setStatus(StatusCode.ERROR, e.getClass().getSimpleName());
      throw e;
    } finally {
      span.end();
    }
  }

  /**
   * The W3C {@code traceparent} header when it is well formed; a malformed one is dropped, as the
   * W3C spec asks, rather than refusing the request.
   */
  static String traceparent(Context ctx) {
    String t = ctx.header(TRACEPARENT);
    return t != null && TRACEPARENT_FORMAT.matcher(t).matches() ? t : null;
  }

  private static UUID orderId(Context ctx) {
    String raw = ctx.pathParam("id");
    try {
      return UUID.fromString(raw);
    } catch (IllegalArgumentException e) {
      throw Problem.badRequest("id", "The order id must be a UUID, not '" + raw + "'.")
          .toException();
    }
  }

  private static void json(Context ctx, int status, String body) {
    ctx.status(status).contentType("application/json").result(body);
  }

  private static void problem(Context ctx, Problem p) {
    ctx.status(p.status()).contentType(Problem.CONTENT_TYPE).result(p.toJson());
  }

  private void recordRequest(Context ctx) {
    MDC.remove(LogContext.TRACE_ID);
    Long started = ctx.attribute(STARTED);
    if (started == null) {
      return;
    }
    String route;
    try {
      route = ctx.endpoint().path;
    } catch (RuntimeException unmatched) {
      route = "unmatched";
    }
    Timer.builder("http.server.requests")
        .tag("method", ctx.method().name())
        .tag("route", route)
        .tag("status", Integer.toString(ctx.statusCode()))
        .register(registry)
        .record(System.nanoTime() - started, java.util.concurrent.TimeUnit.NANOSECONDS);
  }

  @Override
  public synchronized void close() {
    if (app != null) {
      app.stop();
      app = null;
    }
  }
}

package dev.ordinal.lab.sim;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ordinal.lab.sim.internal.FaultsJson;
import dev.ordinal.lab.sim.internal.Pacer;
import dev.ordinal.lab.sim.internal.SimHttp;
import dev.ordinal.lab.sim.internal.SimRequestException;
import io.javalin.http.Context;
import java.math.BigDecimal;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.random.RandomGenerator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An external payment gateway, simulated as a real HTTP server (JSON in and out) that keeps its
 * charges in memory and makes at most one charge per idempotency key.
 *
 * <ul>
 *   <li>{@code POST /charges} with header {@code Idempotency-Key} (required: {@code 400} without)
 *       and body {@code {"orderId":"...","amount":"12.50","currency":"EUR"}}: {@code 201
 *       {"chargeId":"ch_...","status":"CAPTURED",...}}. The same key with the same order, amount
 *       (compared as a number) and currency: {@code 200} with that charge as it is now, never a
 *       second charge, also when both requests arrive together. The same key with another body:
 *       {@code 422 {"error":"IDEMPOTENCY_KEY_REUSED"}}, nothing charged.
 *   <li>{@code POST /charges/{chargeId}/refund}: {@code 200 {"chargeId":...,"status":"REFUNDED"}},
 *       also when already refunded; {@code 404} for an unknown charge.
 *   <li>{@code GET /charges/{chargeId}}: {@code 200} or {@code 404}, answered at once.
 *   <li>{@code GET /charges?idempotencyKey=K}: the charge made under key {@code K}, {@code 200}, or
 *       {@code 404} when none was (as real gateways let a client ask after an unknown outcome
 *       instead of charging again to find out); answered at once, never faulted.
 *   <li>{@code GET|PUT /admin/faults} ({@code latencyMinMs}, {@code latencyMaxMs}, {@code
 *       transientFailureRate}, {@code droppedAfterCaptureRate}, {@code declineRate}, {@code
 *       lateCaptureRate}, {@code lateCaptureDelayMs}; a PUT changes the fields it names), {@code
 *       GET /admin/stats}.
 * </ul>
 *
 * <p>Charges and refunds take a latency and may meet a fault ({@link PaymentGatewayFaults}), drawn
 * from the injected random source; slow requests hold no server thread. All methods are
 * thread-safe.
 */
public final class PaymentGatewaySimulator extends Simulator<PaymentGatewayFaults> {
  public static final int DEFAULT_PORT = 8092;
  public static final String IDEMPOTENCY_KEY = "Idempotency-Key";
  public static final int MAX_KEY_LENGTH = 255;

  private static final Logger log = LoggerFactory.getLogger(PaymentGatewaySimulator.class);
  private static final Set<String> FAULT_FIELDS =
      Set.of(
          "latencyMinMs",
          "latencyMaxMs",
          "transientFailureRate",
          "droppedAfterCaptureRate",
          "declineRate",
          "lateCaptureRate",
          "lateCaptureDelayMs");

  private final Pacer pacer;
  private final RandomGenerator random; // guarded by itself
  private final Clock clock;
  private final Map<String, Charge> byKey = new HashMap<>(); // guarded by itself
  private final Map<String, String> keyById = new HashMap<>(); // guarded by byKey
  private final AtomicInteger calls = new AtomicInteger();
  private final AtomicInteger chargeCalls = new AtomicInteger();
  private final AtomicInteger declines = new AtomicInteger();
  private final AtomicInteger keyLookups = new AtomicInteger();
  private final List<Charge> lateCaptures = new java.util.concurrent.CopyOnWriteArrayList<>();

  /**
   * @param port where to listen once started; 0 picks a free port ({@link #port()} tells which)
   * @param faults the initial fault settings; {@link #faults(PaymentGatewayFaults)} changes them
   * @param random the source of every fault draw, latency and charge id; seed it for repeatable
   *     runs
   * @param clock stamps {@link Charge#capturedAt()}
   */
  public PaymentGatewaySimulator(
      int port, PaymentGatewayFaults faults, RandomGenerator random, Clock clock) {
    super("payment gateway simulator", port, faults, FAULT_FIELDS);
    this.pacer = pacer();
    this.random = Objects.requireNonNull(random, "random");
    this.clock = Objects.requireNonNull(clock, "clock");
  }

  /** Unseeded, with the system clock: for manual runs. */
  public PaymentGatewaySimulator(int port, PaymentGatewayFaults faults) {
    this(port, faults, new SplittableRandom(), Clock.systemUTC());
  }

  /** Started on a free port, with no faults and no latency: answers at once. */
  public static PaymentGatewaySimulator instant() {
    return new PaymentGatewaySimulator(
            0, PaymentGatewayFaults.defaults().withLatency(Duration.ZERO, Duration.ZERO))
        .start();
  }

  /**
   * Starts listening on all interfaces; calling it again does nothing.
   *
   * @throws SimulatorException when the port cannot be bound; choose another port
   * @throws IllegalStateException after {@link #close()}
   */
  @Override
  public PaymentGatewaySimulator start() {
    serve(
        routes -> {
          routes.post("/charges", this::charge);
          routes.post("/charges/{chargeId}/refund", this::refund);
          routes.get("/charges/{chargeId}", this::lookup);
          routes.get("/charges", this::lookupByKey);
        });
    return this;
  }

  /** Distinct charges made (one per idempotency key), refunded ones included. */
  public int charges() {
    synchronized (byKey) {
      return byKey.size();
    }
  }

  /**
   * Every charge made for {@code orderId}, in no particular order; more than one means the order
   * was charged under several idempotency keys. A snapshot.
   */
  public List<Charge> chargesFor(String orderId) {
    synchronized (byKey) {
      return byKey.values().stream().filter(c -> c.orderId().equals(orderId)).toList();
    }
  }

  public Optional<Charge> find(String chargeId) {
    synchronized (byKey) {
      return Optional.ofNullable(keyById.get(chargeId)).map(byKey::get);
    }
  }

  /** Every {@code POST} received (charges and refunds), whatever its outcome. */
  public int calls() {
    return calls.get();
  }

  /** Every {@code POST /charges} received, whatever its outcome. */
  public int chargeCalls() {
    return chargeCalls.get();
  }

  /** Charges answered 402. */
  public int declines() {
    return declines.get();
  }

  /**
   * The charges a late capture made (drawn late, and no retry under the same key charged first), as
   * they were made; a snapshot.
   */
  public List<Charge> lateCaptures() {
    return List.copyOf(lateCaptures);
  }

  /** Charges and refunds received and not answered yet (slow, capturing late). */
  public int inFlight() {
    return pacer.inFlight();
  }

  /** Look-ups by idempotency key received. */
  public int keyLookups() {
    return keyLookups.get();
  }

  private void charge(Context ctx) {
    calls.incrementAndGet();
    chargeCalls.incrementAndGet();
    String key = idempotencyKey(ctx);
    JsonNode body = SimHttp.body(ctx);
    ChargeRequest req =
        new ChargeRequest(
            SimHttp.text(body, "orderId", 128),
            SimHttp.amount(body, "amount"),
            SimHttp.currency(body));
    answerAfterDraw(
        ctx,
        true,
        d -> {
          if (d.decline()) {
            declines.incrementAndGet();
            SimHttp.error(
                ctx,
                402,
                "DECLINED",
                "The card was declined for order " + req.orderId() + "; nothing charged.");
          } else {
            capture(ctx, key, req, d.late());
          }
        });
  }

  /**
   * Draws the latency and fault of one charge or refund and answers after the latency, holding no
   * server thread: a 503 on a transient failure, else {@code answer}, then the connection dropped
   * if that was drawn (never with a decline).
   */
  private void answerAfterDraw(Context ctx, boolean charge, Consumer<Draw> answer) {
    Draw d = draw(charge);
    ctx.future(
        () ->
            pacer.after(
                false,
                d.latency(),
                () -> {
                  if (d.transientFailure()) {
                    unavailable(ctx);
                    return;
                  }
                  answer.accept(d);
                  if (d.drop()) {
                    SimHttp.abortConnection(ctx);
                  }
                }));
  }

  private void capture(Context ctx, String key, ChargeRequest req, boolean late) {
    Charge existing;
    Charge made = null;
    synchronized (byKey) {
      existing = byKey.get(key);
      if (existing == null) {
        made =
            new Charge(
                newChargeId(),
                key,
                req.orderId(),
                req.amount(),
                req.currency(),
                Charge.Status.CAPTURED,
                clock.instant());
        byKey.put(key, made);
        keyById.put(made.chargeId(), key);
      }
    }
    if (made != null) {
      if (late) {
        lateCaptures.add(made);
        log.info("Late capture {} for order {}", made.chargeId(), made.orderId());
      }
      SimHttp.json(ctx, 201, view(made));
    } else if (req.sameAs(existing)) {
      SimHttp.json(ctx, 200, view(existing));
    } else {
      SimHttp.error(
          ctx,
          422,
          "IDEMPOTENCY_KEY_REUSED",
          IDEMPOTENCY_KEY
              + " "
              + key
              + " was used for another charge (order "
              + existing.orderId()
              + ", "
              + existing.amount().toPlainString()
              + " "
              + existing.currency()
              + "); use a new key for a new charge. Nothing was charged.");
    }
  }

  private String newChargeId() {
    String id;
    do {
      long bits;
      synchronized (random) {
        bits = random.nextLong();
      }
      id = "ch_" + HexFormat.of().toHexDigits(bits);
    } while (keyById.containsKey(id));
    return id;
  }

  private void refund(Context ctx) {
    calls.incrementAndGet();
    String chargeId = ctx.pathParam("chargeId");
    if (find(chargeId).isEmpty()) {
      throw new SimRequestException(404, "NOT_FOUND", "No charge has id " + chargeId + ".");
    }
    answerAfterDraw(
        ctx,
        false,
        d -> {
          Charge refunded;
          synchronized (byKey) {
            String key = keyById.get(chargeId);
            refunded = byKey.computeIfPresent(key, (k, c) -> c.refunded());
          }
          SimHttp.json(ctx, 200, view(refunded));
        });
  }

  private void lookupByKey(Context ctx) {
    String key = ctx.queryParam("idempotencyKey");
    if (key == null || key.isEmpty()) {
      throw SimRequestException.invalid(
          "Ask for a charge by key with ?idempotencyKey=<the key the charge was made with>.");
    }
    keyLookups.incrementAndGet();
    Charge c;
    synchronized (byKey) {
      c = byKey.get(key);
    }
    if (c == null) {
      throw new SimRequestException(
          404, "NOT_FOUND", "No charge was made under " + IDEMPOTENCY_KEY + " " + key + ".");
    }
    SimHttp.json(ctx, 200, view(c));
  }

  private void lookup(Context ctx) {
    String chargeId = ctx.pathParam("chargeId");
    Charge c =
        find(chargeId)
            .orElseThrow(
                () ->
                    new SimRequestException(
                        404, "NOT_FOUND", "No charge has id " + chargeId + "."));
    SimHttp.json(ctx, 200, view(c));
  }

  private static void unavailable(Context ctx) {
    SimHttp.error(
        ctx, 503, "UNAVAILABLE", "The gateway is temporarily unavailable; nothing was charged.");
  }

  private static String idempotencyKey(Context ctx) {
    String key = ctx.header(IDEMPOTENCY_KEY);
    if (key == null
        || key.isEmpty()
        || key.length() > MAX_KEY_LENGTH
        || !key.chars().allMatch(c -> c >= 0x21 && c <= 0x7e)) {
      throw SimRequestException.invalid(
          "Send header "
              + IDEMPOTENCY_KEY
              + " with 1 to "
              + MAX_KEY_LENGTH
              + " visible ASCII characters (the order id is a good key).");
    }
    return key;
  }

  /** One draw for a charge ({@code charge}) or a refund; late captures are for charges only. */
  private Draw draw(boolean charge) {
    PaymentGatewayFaults f = faults();
    synchronized (random) {
      double u = random.nextDouble();
      Duration latency = Pacer.latency(random, f.latencyMin(), f.latencyMax());
      double edge = f.transientFailureRate();
      boolean transientFailure = u < edge;
      edge += f.droppedAfterCaptureRate();
      boolean drop = !transientFailure && u < edge;
      edge += f.declineRate();
      boolean decline = !transientFailure && !drop && u < edge;
      edge += f.lateCaptureRate();
      boolean late = charge && !transientFailure && !drop && !decline && u < edge;
      return new Draw(late ? f.lateCaptureDelay() : latency, transientFailure, drop, decline, late);
    }
  }

  private static Map<String, Object> view(Charge c) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("chargeId", c.chargeId());
    m.put("status", c.status().name());
    m.put("orderId", c.orderId());
    m.put("amount", c.amount().toPlainString());
    m.put("currency", c.currency());
    m.put("capturedAt", c.capturedAt().toString());
    return m;
  }

  @Override
  PaymentGatewayFaults faultsFrom(JsonNode body, PaymentGatewayFaults f) {
    return new PaymentGatewayFaults(
        FaultsJson.millis(body, "latencyMinMs", f.latencyMin()),
        FaultsJson.millis(body, "latencyMaxMs", f.latencyMax()),
        FaultsJson.rate(body, "transientFailureRate", f.transientFailureRate()),
        FaultsJson.rate(body, "droppedAfterCaptureRate", f.droppedAfterCaptureRate()),
        FaultsJson.rate(body, "declineRate", f.declineRate()),
        FaultsJson.rate(body, "lateCaptureRate", f.lateCaptureRate()),
        FaultsJson.millis(body, "lateCaptureDelayMs", f.lateCaptureDelay()));
  }

  @Override
  ObjectNode faultsJson(PaymentGatewayFaults f) {
    return FaultsJson.object()
        .put("latencyMinMs", f.latencyMin().toMillis())
        .put("latencyMaxMs", f.latencyMax().toMillis())
        .put("transientFailureRate", f.transientFailureRate())
        .put("droppedAfterCaptureRate", f.droppedAfterCaptureRate())
        .put("declineRate", f.declineRate())
        .put("lateCaptureRate", f.lateCaptureRate())
        .put("lateCaptureDelayMs", f.lateCaptureDelay().toMillis());
  }

  @Override
  ObjectNode stats() {
    return FaultsJson.object()
        .put("calls", calls())
        .put("charges", charges())
        .put("declines", declines())
        .put("lateCaptures", lateCaptures.size())
        .put("inFlight", pacer.inFlight());
  }

  private record ChargeRequest(String orderId, BigDecimal amount, String currency) {
    boolean sameAs(Charge c) {
      return orderId.equals(c.orderId())
          && amount.compareTo(c.amount()) == 0
          && currency.equals(c.currency());
    }
  }

  private record Draw(
      Duration latency, boolean transientFailure, boolean drop, boolean decline, boolean late) {}
}

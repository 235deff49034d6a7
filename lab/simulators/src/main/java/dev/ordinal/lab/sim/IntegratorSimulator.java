package dev.ordinal.lab.sim;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ordinal.lab.sim.internal.FaultsJson;
import dev.ordinal.lab.sim.internal.Pacer;
import dev.ordinal.lab.sim.internal.SimHttp;
import dev.ordinal.lab.sim.internal.SimRequestException;
import io.javalin.http.Context;
import java.time.Clock;
import java.time.Duration;
import java.util.Collections;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.random.RandomGenerator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The external e-invoice integrator, simulated as a real HTTP server (JSON in and out) that keeps
 * accepted invoices in memory, keyed by their legal number.
 *
 * <ul>
 *   <li>{@code POST /invoices} {@code {"series":"F2026","number":17,"invoiceId":"...",
 *       "orderId":"...","total":"12.50","currency":"EUR"}}: {@code 201} with the acceptance ({@code
 *       {"status":"ACCEPTED","series","number","invoiceId","orderId","total","currency",
 *       "acceptedAt"}}). The same number again with the same {@code invoiceId}: {@code 200} with
 *       the stored acceptance (the body's other fields are not compared). The same number with
 *       another {@code invoiceId}: {@code 409 {"error":"DUPLICATE","detail":"Duplicate / Already
 *       Exists"}}, counted in {@link #duplicateAttempts()}; the first invoice stays. A malformed
 *       body: {@code 400 {"error":"INVALID","detail":...}} naming the field. Each submission first
 *       waits at the gate while {@linkplain #hold() held}, then takes its latency and may meet a
 *       fault ({@link IntegratorFaults}).
 *   <li>{@code GET /invoices/{series}/{number}}: {@code 200} with the stored invoice, or {@code
 *       404}; answered at once, never held nor faulted, so orphan recovery can always ask.
 *   <li>{@code GET /invoices?invoiceId=ID}: {@code 200} with the list of invoices stored under any
 *       number for that invoice id, by series and number ({@code []} when none), so a client whose
 *       own records were lost (a restored database) can ask what the integrator holds for an
 *       invoice; answered at once, never held nor faulted.
 *   <li>{@code GET|PUT /admin/faults}: the fault settings ({@code latencyMinMs}, {@code
 *       latencyMaxMs}, {@code transientFailureRate}, {@code rejectionRate}, {@code timeoutRate},
 *       {@code timeoutMs}, {@code droppedAfterAcceptRate}, {@code lateAcceptRate}); a PUT changes
 *       the fields it names. {@code POST /admin/hold}, {@code POST /admin/release}, {@code GET
 *       /admin/stats}.
 * </ul>
 *
 * <p>Slow, held and timing-out submissions cost no server thread, so the simulator answers lookups
 * and other submissions meanwhile. All methods are thread-safe. The fault draw and the latency come
 * from the injected random source, so a seeded run with fixed rates repeats.
 */
public final class IntegratorSimulator extends Simulator<IntegratorFaults> {
  public static final int DEFAULT_PORT = 8091;

  private static final Logger log = LoggerFactory.getLogger(IntegratorSimulator.class);
  private static final String DUPLICATE_DETAIL = "Duplicate / Already Exists";
  private static final Set<String> FAULT_FIELDS =
      Set.of(
          "latencyMinMs",
          "latencyMaxMs",
          "transientFailureRate",
          "rejectionRate",
          "timeoutRate",
          "timeoutMs",
          "droppedAfterAcceptRate",
          "lateAcceptRate");

  private final Pacer pacer;
  private final RandomGenerator random; // guarded by itself
  private final Clock clock;
  private final Map<InvoiceNumber, AcceptedInvoice> store = new ConcurrentHashMap<>();
  private final Map<InvoiceNumber, AtomicInteger> submissions = new ConcurrentHashMap<>();
  private final Map<IntegratorFault, AtomicInteger> injected = new EnumMap<>(IntegratorFault.class);
  private final AtomicInteger calls = new AtomicInteger();
  private final AtomicInteger duplicateAttempts = new AtomicInteger();
  private final Map<String, AtomicInteger> inFlightBySeries = new ConcurrentHashMap<>();
  private final AtomicInteger maxSameSeriesInFlight = new AtomicInteger();

  /**
   * @param port where to listen once started; 0 picks a free port ({@link #port()} tells which)
   * @param faults the initial fault settings; {@link #faults(IntegratorFaults)} changes them
   * @param random the source of every fault draw and latency; seed it for repeatable runs
   * @param clock stamps {@link AcceptedInvoice#acceptedAt()}
   */
  public IntegratorSimulator(
      int port, IntegratorFaults faults, RandomGenerator random, Clock clock) {
    super("integrator simulator", port, faults, FAULT_FIELDS);
    this.pacer = pacer();
    this.random = Objects.requireNonNull(random, "random");
    this.clock = Objects.requireNonNull(clock, "clock");
    for (IntegratorFault f : IntegratorFault.values()) {
      injected.put(f, new AtomicInteger());
    }
  }

  /** Unseeded, with the system clock: for manual runs. */
  public IntegratorSimulator(int port, IntegratorFaults faults) {
    this(port, faults, new SplittableRandom(), Clock.systemUTC());
  }

  /** Started on a free port, with no faults and no latency: answers at once. */
  public static IntegratorSimulator instant() {
    return new IntegratorSimulator(
            0, IntegratorFaults.defaults().withLatency(Duration.ZERO, Duration.ZERO))
        .start();
  }

  /**
   * Starts listening on all interfaces; calling it again does nothing.
   *
   * @throws SimulatorException when the port cannot be bound; choose another port
   * @throws IllegalStateException after {@link #close()}
   */
  @Override
  public IntegratorSimulator start() {
    serve(
        routes -> {
          routes.post("/invoices", this::submit);
          routes.get("/invoices/{series}/{number}", this::lookup);
          routes.get("/invoices", this::lookupByInvoiceId);
          routes.post("/admin/hold", ctx -> adminHold(ctx, true));
          routes.post("/admin/release", ctx -> adminHold(ctx, false));
        });
    return this;
  }

  /**
   * From now on every submission waits, unanswered, until {@link #release()}; submissions already
   * past the gate, lookups and admin calls go on. Nothing is stored or counted as accepted while a
   * submission waits (it is counted in {@link #calls()} and {@link #submissions()} on arrival).
   */
  public void hold() {
    pacer.hold();
  }

  /** Lets every waiting submission go on; each then takes its latency and fault draw as usual. */
  public void release() {
    pacer.release();
  }

  /** Submissions waiting for {@link #release()}. */
  public int held() {
    return pacer.held();
  }

  /** Number → invoice id of every accepted invoice, ordered by series then number; a snapshot. */
  public Map<InvoiceNumber, String> accepted() {
    Map<InvoiceNumber, String> copy = new TreeMap<>();
    store.forEach((k, v) -> copy.put(k, v.invoiceId()));
    return Collections.unmodifiableMap(copy);
  }

  /** The invoice stored under {@code number}, as the lookup endpoint returns it. */
  public Optional<AcceptedInvoice> find(InvoiceNumber number) {
    return Optional.ofNullable(store.get(number));
  }

  /** Submissions received and not answered yet (slow, held, timing out, accepting late). */
  public int inFlight() {
    return pacer.inFlight();
  }

  public int acceptedCount() {
    return store.size();
  }

  /** Submissions refused with 409 because their number is stored for another invoice id. */
  public int duplicateAttempts() {
    return duplicateAttempts.get();
  }

  /**
   * The most well-formed submissions of one series that were in flight (received, not yet answered)
   * at the same moment. Two or more prove that the callers hold no lock on the series across the
   * call.
   */
  public int maxSameSeriesInFlight() {
    return maxSameSeriesInFlight.get();
  }

  /** Every {@code POST /invoices} received, whatever its outcome (malformed ones included). */
  public int calls() {
    return calls.get();
  }

  /**
   * How many well-formed submissions each number received, whatever their outcome (faulted,
   * duplicate, idempotent repeat, still held); ordered; a snapshot.
   */
  public Map<InvoiceNumber, Integer> submissions() {
    Map<InvoiceNumber, Integer> copy = new TreeMap<>();
    submissions.forEach((k, v) -> copy.put(k, v.get()));
    return Collections.unmodifiableMap(copy);
  }

  /** How often {@code fault} was injected so far (counted when its outcome is answered). */
  public int injected(IntegratorFault fault) {
    return injected.get(fault).get();
  }

  private void submit(Context ctx) {
    calls.incrementAndGet();
    Submission s = Submission.parse(SimHttp.body(ctx));
    submissions.computeIfAbsent(s.number(), k -> new AtomicInteger()).incrementAndGet();
    AtomicInteger inFlight =
        inFlightBySeries.computeIfAbsent(s.number().series(), k -> new AtomicInteger());
    maxSameSeriesInFlight.accumulateAndGet(inFlight.incrementAndGet(), Math::max);
    IntegratorFaults f = faults();
    IntegratorFault fault;
    Duration latency;
    synchronized (random) {
      fault = draw(f, random.nextDouble());
      latency = Pacer.latency(random, f.latencyMin(), f.latencyMax());
    }
    Duration wait =
        fault == IntegratorFault.TIMEOUT || fault == IntegratorFault.LATE_ACCEPT
            ? f.timeout()
            : latency;
    ctx.future(
        () ->
            pacer.after(
                true,
                wait,
                () -> {
                  inFlight.decrementAndGet();
                  answer(ctx, s, fault);
                }));
  }

  private static IntegratorFault draw(IntegratorFaults f, double u) {
    double edge = f.transientFailureRate();
    if (u < edge) {
      return IntegratorFault.TRANSIENT_FAILURE;
    }
    edge += f.rejectionRate();
    if (u < edge) {
      return IntegratorFault.REJECTION;
    }
    edge += f.timeoutRate();
    if (u < edge) {
      return IntegratorFault.TIMEOUT;
    }
    edge += f.droppedAfterAcceptRate();
    if (u < edge) {
      return IntegratorFault.DROPPED_AFTER_ACCEPT;
    }
    edge += f.lateAcceptRate();
    return u < edge ? IntegratorFault.LATE_ACCEPT : null;
  }

  private void answer(Context ctx, Submission s, IntegratorFault fault) {
    if (fault != null) {
      injected.get(fault).incrementAndGet();
    }
    if (fault == null) {
      process(ctx, s);
      return;
    }
    switch (fault) {
      case TRANSIENT_FAILURE ->
          SimHttp.error(
              ctx, 503, "UNAVAILABLE", "The integrator is temporarily unavailable; retry later.");
      case REJECTION ->
          SimHttp.error(
              ctx,
              422,
              "REJECTED",
              "Invoice " + s.invoiceId() + " (" + s.number() + ") was rejected as invalid.");
      case TIMEOUT ->
          SimHttp.error(
              ctx, 504, "TIMEOUT", "The integrator did not answer in time; nothing was stored.");
      case DROPPED_AFTER_ACCEPT -> {
        process(ctx, s);
        SimHttp.abortConnection(ctx);
      }
      case LATE_ACCEPT -> process(ctx, s);
    }
  }

  private void process(Context ctx, Submission s) {
    AcceptedInvoice candidate =
        new AcceptedInvoice(
            s.number(), s.invoiceId(), s.orderId(), s.total(), s.currency(), clock.instant());
    AcceptedInvoice stored = store.putIfAbsent(s.number(), candidate);
    if (stored == null) {
      SimHttp.json(ctx, 201, view(candidate));
    } else if (stored.invoiceId().equals(s.invoiceId())) {
      SimHttp.json(ctx, 200, view(stored));
    } else {
      duplicateAttempts.incrementAndGet();
      SimHttp.error(ctx, 409, "DUPLICATE", DUPLICATE_DETAIL);
    }
  }

  private void lookup(Context ctx) {
    InvoiceNumber n;
    try {
      n = new InvoiceNumber(ctx.pathParam("series"), Long.parseLong(ctx.pathParam("number")));
    } catch (IllegalArgumentException e) {
      throw SimRequestException.invalid(
          "The lookup is /invoices/{series}/{number} with a positive number: " + e.getMessage());
    }
    AcceptedInvoice inv = store.get(n);
    if (inv == null) {
      SimHttp.error(ctx, 404, "NOT_FOUND", "No invoice is stored under " + n + ".");
    } else {
      SimHttp.json(ctx, 200, view(inv));
    }
  }

  private void lookupByInvoiceId(Context ctx) {
    String invoiceId = ctx.queryParam("invoiceId");
    if (invoiceId == null || invoiceId.isEmpty()) {
      throw SimRequestException.invalid(
          "Ask for an invoice's numbers with /invoices?invoiceId=<the invoice id it was sent with>.");
    }
    SimHttp.json(
        ctx,
        200,
        new TreeMap<>(store)
            .values().stream()
                .filter(inv -> inv.invoiceId().equals(invoiceId))
                .map(IntegratorSimulator::view)
                .toList());
  }

  private static Map<String, Object> view(AcceptedInvoice inv) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("status", "ACCEPTED");
    m.put("series", inv.number().series());
    m.put("number", inv.number().number());
    m.put("invoiceId", inv.invoiceId());
    m.put("orderId", inv.orderId());
    m.put("total", inv.total());
    m.put("currency", inv.currency());
    m.put("acceptedAt", inv.acceptedAt().toString());
    return m;
  }

  @Override
  IntegratorFaults faultsFrom(JsonNode body, IntegratorFaults f) {
    return new IntegratorFaults(
        FaultsJson.millis(body, "latencyMinMs", f.latencyMin()),
        FaultsJson.millis(body, "latencyMaxMs", f.latencyMax()),
        FaultsJson.rate(body, "transientFailureRate", f.transientFailureRate()),
        FaultsJson.rate(body, "rejectionRate", f.rejectionRate()),
        FaultsJson.rate(body, "timeoutRate", f.timeoutRate()),
        FaultsJson.millis(body, "timeoutMs", f.timeout()),
        FaultsJson.rate(body, "droppedAfterAcceptRate", f.droppedAfterAcceptRate()),
        FaultsJson.rate(body, "lateAcceptRate", f.lateAcceptRate()));
  }

  @Override
  ObjectNode faultsJson(IntegratorFaults f) {
    return FaultsJson.object()
        .put("latencyMinMs", f.latencyMin().toMillis())
        .put("latencyMaxMs", f.latencyMax().toMillis())
        .put("transientFailureRate", f.transientFailureRate())
        .put("rejectionRate", f.rejectionRate())
        .put("timeoutRate", f.timeoutRate())
        .put("timeoutMs", f.timeout().toMillis())
        .put("droppedAfterAcceptRate", f.droppedAfterAcceptRate())
        .put("lateAcceptRate", f.lateAcceptRate());
  }

  private void adminHold(Context ctx, boolean hold) {
    if (hold) {
      hold();
    } else {
      release();
    }
    SimHttp.json(ctx, 200, stats());
  }

  @Override
  ObjectNode stats() {
    ObjectNode n =
        FaultsJson.object()
            .put("calls", calls())
            .put("accepted", acceptedCount())
            .put("duplicateAttempts", duplicateAttempts())
            .put("held", held())
            .put("inFlight", pacer.inFlight());
    ObjectNode inj = n.putObject("injected");
    injected.forEach((k, v) -> inj.put(k.name(), v.get()));
    return n;
  }

  /** A well-formed submission. */
  private record Submission(
      InvoiceNumber number, String invoiceId, String orderId, String total, String currency) {

    static Submission parse(JsonNode body) {
      String series = SimHttp.text(body, "series", 32);
      JsonNode num = body.get("number");
      if (num == null || !num.isIntegralNumber() || !num.canConvertToLong()) {
        throw SimRequestException.invalid("number must be a positive whole number: " + num);
      }
      InvoiceNumber n;
      try {
        n = new InvoiceNumber(series, num.longValue());
      } catch (IllegalArgumentException e) {
        throw SimRequestException.invalid(e.getMessage());
      }
      SimHttp.amount(body, "total");
      return new Submission(
          n,
          SimHttp.text(body, "invoiceId", 128),
          SimHttp.text(body, "orderId", 128),
          body.get("total").textValue(),
          SimHttp.currency(body));
    }
  }
}

package dev.ordinal.lab.sim;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ordinal.lab.sim.internal.FaultsJson;
import dev.ordinal.lab.sim.internal.Pacer;
import dev.ordinal.lab.sim.internal.SimHttp;
import dev.ordinal.lab.sim.internal.SimRequestException;
import dev.ordinal.lab.sim.internal.SimServer;
import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import java.net.URI;
import java.util.Objects;
import java.util.Set;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What both simulators share: one HTTP server and its pacer, fault settings changed at run time (in
 * code or through {@code GET|PUT /admin/faults}, a PUT changing only the fields it names and
 * refusing unknown ones), {@code GET /admin/stats}, and an idempotent close that answers whatever
 * still waits with 503. All methods are thread-safe.
 *
 * @param <F> the simulator's fault settings
 */
public abstract class Simulator<F> implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(Simulator.class);

  private final String name;
  private final SimServer server;
  private final Set<String> faultFields;
  private volatile F faults;

  Simulator(String name, int port, F faults, Set<String> faultFields) {
    this.name = name;
    this.server = new SimServer(name, port);
    this.faults = Objects.requireNonNull(faults, "faults");
    this.faultFields = faultFields;
  }

  /** The pacer that holds slow requests without a server thread. */
  final Pacer pacer() {
    return server.pacer();
  }

  /**
   * Starts listening on all interfaces with {@code routes} and the admin routes; calling it again
   * does nothing.
   *
   * @throws SimulatorException when the port cannot be bound; choose another port
   * @throws IllegalStateException after {@link #close()}
   */
  final void serve(Consumer<RoutesConfig> routes) {
    server.start(
        r -> {
          routes.accept(r);
          r.get("/admin/faults", ctx -> SimHttp.json(ctx, 200, faultsJson(faults)));
          r.put("/admin/faults", this::putFaults);
          r.get("/admin/stats", ctx -> SimHttp.json(ctx, 200, stats()));
        });
  }

  /** Starts listening; see {@link #serve}. */
  public abstract Simulator<F> start();

  /**
   * The bound port.
   *
   * @throws IllegalStateException before {@link #start()}
   */
  public int port() {
    return server.port();
  }

  /** {@code http://localhost:<port>}. */
  public URI baseUri() {
    return URI.create("http://localhost:" + port());
  }

  public F faults() {
    return faults;
  }

  /** Applies to requests that arrive from now on; those in flight keep their draw. */
  public void faults(F newFaults) {
    this.faults = Objects.requireNonNull(newFaults, "faults");
  }

  /** The fault settings {@code body} asks for, the fields it leaves out kept from {@code now}. */
  abstract F faultsFrom(JsonNode body, F now);

  /** The fault settings as {@code GET /admin/faults} shows them. */
  abstract ObjectNode faultsJson(F f);

  /** The counters {@code GET /admin/stats} shows. */
  abstract ObjectNode stats();

  private void putFaults(Context ctx) {
    JsonNode body = SimHttp.body(ctx);
    FaultsJson.onlyFields(body, faultFields);
    F f;
    try {
      f = faultsFrom(body, faults);
    } catch (IllegalArgumentException e) {
      throw SimRequestException.invalid(e.getMessage());
    }
    faults(f);
    log.info("{} faults now {}", name, f);
    SimHttp.json(ctx, 200, faultsJson(f));
  }

  /**
   * Stops the server; requests still waiting (held, slow or timing out) are answered 503 first.
   * What the simulator stored stays readable through its introspection methods. Idempotent.
   */
  @Override
  public void close() {
    server.close();
  }
}

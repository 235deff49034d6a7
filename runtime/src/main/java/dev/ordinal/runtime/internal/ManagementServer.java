package dev.ordinal.runtime.internal;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ordinal.runtime.Health;
import dev.ordinal.runtime.LoopHealth;
import dev.ordinal.runtime.LoopState;
import dev.ordinal.runtime.ManagementSettings;
import dev.ordinal.runtime.ServerHealth;
import io.javalin.Javalin;
import io.javalin.http.Context;
import io.javalin.util.JavalinBindException;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Instant;
import java.util.function.Supplier;
import org.eclipse.jetty.util.thread.QueuedThreadPool;

/** {@code GET /health/live}, {@code GET /health/ready} and {@code GET /metrics} of one service. */
public final class ManagementServer implements AutoCloseable {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final Javalin app;

  private ManagementServer(Javalin app) {
    this.app = app;
  }

  /**
   * Serves on {@code settings}' host and port.
   *
   * @throws dev.ordinal.runtime.PortInUseException with one sentence when the port is taken
   */
  public static ManagementServer start(
      String service,
      ManagementSettings settings,
      Supplier<Health> health,
      PrometheusMeterRegistry registry) {
    Javalin app =
        Javalin.create(
            c -> {
              c.startup.showJavalinBanner = false;
              QueuedThreadPool pool = new QueuedThreadPool(8, 2);
              pool.setName(service + "-management");
              pool.setDaemon(true);
              c.jetty.threadPool = pool;
              c.routes.get(
                  "/health/live",
                  ctx -> {
                    Health h = health.get();
                    json(ctx, h.live() ? 200 : 503, live(h));
                  });
              c.routes.get(
                  "/health/ready",
                  ctx -> {
                    Health h = health.get();
                    json(ctx, h.ready() ? 200 : 503, toJson(h));
                  });
              c.routes.get(
                  "/metrics",
                  ctx ->
                      ctx.contentType("text/plain; version=0.0.4; charset=utf-8")
                          .result(registry.scrape()));
            });
    try {
      app.start(settings.host(), settings.port());
    } catch (JavalinBindException e) {
      app.stop();
      throw new dev.ordinal.runtime.PortInUseException(
          "The management port "
              + settings.host()
              + ":"
              + settings.port()
              + " of "
              + service
              + " is in use: pick another with --management-port (0 picks a free one).",
          e);
    }
    return new ManagementServer(app);
  }

  public int port() {
    return app.port();
  }

  /** The body of {@code /health/live}: UP, or DOWN with the loops that are stalled. */
  private static String live(Health h) {
    ObjectNode n = JSON.createObjectNode();
    n.put("service", h.service());
    n.put("status", h.live() ? "UP" : "DOWN");
    ArrayNode stalled = n.putArray("stalled");
    h.loops().stream()
        .filter(l -> l.state() == LoopState.STALLED)
        .forEach(l -> stalled.add(l.name()));
    return n.toString();
  }

  /** The body of {@code /health/ready}. */
  public static String toJson(Health h) {
    ObjectNode n = JSON.createObjectNode();
    n.put("service", h.service());
    n.put("status", h.status());
    n.put("phase", h.phase().name());
    ArrayNode loops = n.putArray("loops");
    for (LoopHealth l : h.loops()) {
      ObjectNode o = loops.addObject();
      o.put("name", l.name());
      o.put("state", l.state().name());
      o.put("since", text(l.since()));
      o.put("restarts", l.restarts());
      o.put("lastError", l.lastError());
      o.put("lastErrorAt", text(l.lastErrorAt()));
    }
    ArrayNode servers = n.putArray("servers");
    for (ServerHealth s : h.servers()) {
      ObjectNode o = servers.addObject();
      o.put("name", s.name());
      o.put("setting", s.setting());
      o.put("address", s.address());
      o.put("up", s.up());
      o.put("since", text(s.since()));
      o.put("lastError", s.lastError());
    }
    return n.toString();
  }

  private static String text(Instant i) {
    return i == null ? null : i.toString();
  }

  private static void json(Context ctx, int status, String body) {
    ctx.status(status).contentType("application/json").result(body);
  }

  @Override
  public void close() {
    app.stop();
  }
}

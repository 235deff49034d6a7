package dev.ordinal.cli;

import io.javalin.Javalin;
import io.javalin.util.JavalinBindException;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;

/** {@code GET /metrics} (Prometheus text format) for a long-running command. */
final class MetricsEndpoint {
  private MetricsEndpoint() {}

  /** Serves {@code registry} on {@code port} (0 picks a free one); the caller stops it. */
  static Javalin start(PrometheusMeterRegistry registry, int port) {
    Javalin server =
        Javalin.create(
            c -> {
              c.startup.showJavalinBanner = false;
              c.routes.get(
                  "/metrics",
                  ctx -> ctx.contentType("text/plain; version=0.0.4").result(registry.scrape()));
            });
    try {
      return server.start(port);
    } catch (JavalinBindException e) {
      server.stop();
      throw e;
    }
  }
}

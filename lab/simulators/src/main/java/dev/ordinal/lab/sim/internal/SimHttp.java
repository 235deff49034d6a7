package dev.ordinal.lab.sim.internal;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ordinal.lab.sim.SimulatorException;
import io.javalin.Javalin;
import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import io.javalin.http.HttpResponseException;
import java.io.IOException;
import java.math.BigDecimal;
import java.util.function.Consumer;
import java.util.regex.Pattern;
import org.eclipse.jetty.ee10.servlet.ServletContextRequest;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** What both simulators share: the Javalin set-up, JSON in and out, and the connection abort. */
public final class SimHttp {
  public static final ObjectMapper JSON = new ObjectMapper();
  public static final int MAX_BODY_BYTES = 64 * 1024;

  private static final Logger log = LoggerFactory.getLogger(SimHttp.class);
  private static final Pattern CURRENCY = Pattern.compile("[A-Z]{3}");

  private SimHttp() {}

  /**
   * A Javalin app with JSON errors: {@link SimRequestException} and Javalin's own refusals (an
   * unknown route, a body over {@link #MAX_BODY_BYTES}) as their status, anything else as 500.
   */
  public static Javalin create(Consumer<RoutesConfig> routes) {
    return Javalin.create(
        config -> {
          config.startup.showJavalinBanner = false;
          config.http.maxRequestSize = MAX_BODY_BYTES;
          // no async timeout: a held submission waits as long as the caller of hold() wants
          // (Jetty's connection idle timeout does not end a suspended request)
          config.http.asyncTimeout = 0;
          routes.accept(config.routes);
          config.routes.exception(
              SimRequestException.class,
              (e, ctx) -> error(ctx, e.status(), e.error(), e.getMessage()));
          config.routes.exception(
              HttpResponseException.class,
              (e, ctx) ->
                  error(
                      ctx,
                      e.getStatus(),
                      switch (e.getStatus()) {
                        case 404 -> "NOT_FOUND";
                        case 413 -> "TOO_LARGE";
                        default -> "REFUSED";
                      },
                      e.getMessage()));
          config.routes.exception(
              Exception.class,
              (e, ctx) -> {
                log.error("{} {} failed", ctx.method(), ctx.path(), e);
                error(ctx, 500, "INTERNAL", "The simulator failed; its log has the details.");
              });
        });
  }

  /** Starts {@code app} on {@code port} (0 picks a free one) and returns the bound port. */
  public static int start(Javalin app, int port, String what) {
    try {
      app.start(port);
    } catch (RuntimeException e) {
      app.stop();
      throw new SimulatorException(
          "The "
              + what
              + " could not listen on port "
              + port
              + " ("
              + e.getMessage()
              + "); free the port or choose another (0 picks a free one).",
          e);
    }
    return app.port();
  }

  public static void json(Context ctx, int status, Object body) {
    try {
      ctx.status(status).contentType("application/json").result(JSON.writeValueAsBytes(body));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot write " + body.getClass(), e);
    }
  }

  public static void error(Context ctx, int status, String error, String detail) {
    ObjectNode body = JSON.createObjectNode().put("error", error).put("detail", detail);
    json(ctx, status, body);
  }

  /** The request body as a JSON object, or 400. */
  public static ObjectNode body(Context ctx) {
    JsonNode n;
    try {
      n = JSON.readTree(ctx.bodyAsBytes());
    } catch (IOException e) {
      throw SimRequestException.invalid("The request body is not valid JSON.");
    }
    if (n == null || !n.isObject()) {
      throw SimRequestException.invalid("The request body must be a JSON object.");
    }
    return (ObjectNode) n;
  }

  /** A non-blank string field, at most {@code max} characters, or 400 naming it. */
  public static String text(JsonNode body, String field, int max) {
    JsonNode v = body.get(field);
    if (v == null || !v.isTextual() || v.textValue().isBlank() || v.textValue().length() > max) {
      throw SimRequestException.invalid(
          field + " must be a non-blank string of at most " + max + " characters.");
    }
    return v.textValue();
  }

  /** A string field holding a decimal amount greater than zero, or 400 naming it. */
  public static BigDecimal amount(JsonNode body, String field) {
    String raw = text(body, field, 32);
    try {
      BigDecimal d = new BigDecimal(raw);
      if (d.signum() > 0) {
        return d;
      }
    } catch (NumberFormatException e) {
      // answered below
    }
    throw SimRequestException.invalid(
        field + " must be a decimal amount above zero as a string, e.g. \"12.50\": " + raw);
  }

  /** A three-letter upper-case currency code, or 400. */
  public static String currency(JsonNode body) {
    String c = text(body, "currency", 3);
    if (!CURRENCY.matcher(c).matches()) {
      throw SimRequestException.invalid("currency must be an ISO 4217 code such as EUR: " + c);
    }
    return c;
  }

  /**
   * Closes the client's connection without a response: whatever the handler did is kept, and the
   * client sees the connection drop (an {@code IOException}), not a status.
   */
  public static void abortConnection(Context ctx) {
    ServletContextRequest.getServletContextRequest(ctx.req())
        .getServletChannel()
        .getEndPoint()
        .close();
  }
}

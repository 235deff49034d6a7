package dev.ordinal.console;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ordinal.messaging.ConfigurationException;
import dev.ordinal.messaging.MessagingException;
import dev.ordinal.messaging.RefusedException;
import dev.ordinal.messaging.Servers;
import dev.ordinal.order.ApiGate;
import dev.ordinal.runtime.Loop;
import dev.ordinal.runtime.PortInUseException;
import dev.ordinal.runtime.ServiceRuntime;
import io.javalin.Javalin;
import io.javalin.config.JavalinConfig;
import io.javalin.http.Context;
import io.javalin.util.JavalinBindException;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.time.Clock;
import java.util.Map;
import java.util.Properties;
import java.util.function.BiFunction;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code ./ordinal console}: the page ({@code GET /}), its script, style and plotting library;
 * {@code GET /api/pipe}, the snapshot the page shows ({@link PipeReader}); {@code GET
 * /api/history}, the plots' last hour ({@link History}, sampled by the console's one loop, {@code
 * history}, supervised by its {@link ServiceRuntime}, whose management port serves the console's
 * {@code /health/*} and {@code /metrics}, ready while the loop runs and both servers answer); and,
 * only when started with {@code --allow-actions}, {@code POST /api/dlq/redrive} and {@code POST
 * /api/dlq/discard} ({@link ConsoleActions}).
 *
 * <p>Every {@code /api/} request is authenticated as the order API's are ({@link ApiGate}): scope
 * {@value ConsoleSettings#SCOPE_READ} to read, {@value ConsoleSettings#SCOPE_ACT} for an action. An
 * action must also be sent as {@code application/json} from the console's own origin (a page of
 * another site cannot make one in the browser of someone signed in, or on this machine).
 */
public final class ConsoleServer implements AutoCloseable {
  /** The uPlot files of its WebJar (the version the build put on the classpath), as /uplot/. */
  private static final String UPLOT =
      "/META-INF/resources/webjars/uplot/" + webJarVersion("uplot") + "/dist/";

  /** Each file the page needs: path served → classpath resource and content type. */
  private static final Map<String, String[]> FILES =
      Map.of(
          "/", new String[] {"index.html", "text/html; charset=utf-8"},
          "/console.js", new String[] {"console.js", "text/javascript; charset=utf-8"},
          "/console.css", new String[] {"console.css", "text/css; charset=utf-8"},
          "/uplot/uPlot.esm.js", new String[] {UPLOT + "uPlot.esm.js", "text/javascript"},
          "/uplot/uPlot.min.css", new String[] {UPLOT + "uPlot.min.css", "text/css"});

  private static final Logger log = LoggerFactory.getLogger(ConsoleServer.class);
  private static final ObjectMapper JSON = new ObjectMapper();

  private final Javalin app;
  private final PipeReader reader;
  private final ServiceRuntime runtime;
  private final String host;

  private ConsoleServer(Javalin app, PipeReader reader, ServiceRuntime runtime, String host) {
    this.app = app;
    this.host = host;
    this.reader = reader;
    this.runtime = runtime;
  }

  /** A request refused before its handler ran: the problem to answer with. */
  private static final class Refused extends RuntimeException {
    final int status;
    final Map<String, String> headers;

    Refused(int status, String detail, Map<String, String> headers) {
      super(detail, null, false, false);
      this.status = status;
      this.headers = headers;
    }
  }

  /**
   * Serves the console on {@code settings}' host and port.
   *
   * @throws PortInUseException with one sentence when the port is taken
   */
  public static ConsoleServer start(ConsoleSettings settings) {
    Clock clock = Clock.systemUTC();
    ApiGate gate = ApiGate.of(settings.auth(), clock);
    PipeReader reader = new PipeReader(settings, clock);
    ConsoleActions actions = new ConsoleActions(settings, reader, clock);
    Javalin app =
        Javalin.create(
            c -> {
              c.startup.showJavalinBanner = false;
              QueuedThreadPool pool = new QueuedThreadPool(8, 2);
              pool.setName("console");
              pool.setDaemon(true);
              c.jetty.threadPool = pool;
              FILES.forEach((path, file) -> c.routes.get(path, ctx -> serve(ctx, file)));
              c.routes.before("/api/*", ctx -> admit(ctx, gate, settings.allowActions()));
              c.routes.get("/api/pipe", ctx -> json(ctx, reader.snapshot().toString()));
              c.routes.get("/api/history", ctx -> json(ctx, reader.history().toJson().toString()));
              c.routes.post("/api/dlq/redrive", ctx -> act(ctx, actions::redrive));
              c.routes.post("/api/dlq/discard", ctx -> act(ctx, actions::discard));
              problems(c);
            });
    ServiceRuntime runtime;
    try {
      runtime = new ServiceRuntime("console", settings.management(), clock);
    } catch (RuntimeException e) {
      reader.close();
      throw e;
    }
    try {
      app.start(settings.host(), settings.port());
      runtime.watch(Servers.postgres(settings.db(), false));
      runtime.watch(Servers.kafka(settings.kafka()));
      runtime.supervisor().start("history", Loop.every(History.STEP, reader::snapshot));
      runtime.started();
    } catch (JavalinBindException e) {
      app.stop();
      runtime.close();
      reader.close();
      throw new PortInUseException(
          "The console's port "
              + settings.host()
              + ":"
              + settings.port()
              + " is in use: pick another with --port (0 picks a free one).",
          e);
    }
    if (settings.auth().isNone()) {
      log.warn(
          "The console is unauthenticated (--auth none): anyone on this machine may {} it.",
          settings.allowActions()
              ? "read the pipe and re-drive or discard dead letters with"
              : "read");
    }
    return new ConsoleServer(app, reader, runtime, settings.host());
  }

  /**
   * Lets an {@code /api/} request through, or refuses it: authenticated and granted the scope of
   * its kind (401, 403, 503 as the order API answers); an action only with --allow-actions, as
   * JSON, from the console's own origin.
   */
  private static void admit(Context ctx, ApiGate gate, boolean allowActions) {
    boolean action = "POST".equals(ctx.method().name());
    String scope = action ? ConsoleSettings.SCOPE_ACT : ConsoleSettings.SCOPE_READ;
    ApiGate.Outcome outcome = gate.check(ctx.header("Authorization"), scope);
    if (!outcome.allowed()) {
      ApiGate.Refusal r = outcome.refusal();
      throw new Refused(r.status(), r.detail(), r.headers());
    }
    ctx.attribute("subject", outcome.subject());
    if (!action) {
      return;
    }
    if (!allowActions) {
      throw new Refused(
          403,
          "The console is read-only: start it with --allow-actions to re-drive or discard dead"
              + " letters.",
          Map.of());
    }
    String origin = ctx.header("Origin");
    if (origin != null && !sameAuthority(origin, ctx.header("Host"))) {
      throw new Refused(403, "An action must come from the console's own page.", Map.of());
    }
    String type = ctx.contentType();
    if (type == null || !type.toLowerCase(java.util.Locale.ROOT).startsWith("application/json")) {
      throw new Refused(415, "Send the action as Content-Type: application/json.", Map.of());
    }
  }

  /**
   * Whether a page of {@code origin} is the console's own: the same host and port as the request's
   * {@code Host}, whatever the scheme (a proxy may serve the console over https).
   */
  static boolean sameAuthority(String origin, String host) {
    try {
      String authority = java.net.URI.create(origin.strip()).getRawAuthority();
      return authority != null && host != null && authority.equalsIgnoreCase(host.strip());
    } catch (IllegalArgumentException e) {
      return false;
    }
  }

  private static void act(Context ctx, BiFunction<String, byte[], Object> action) {
    json(ctx, action.apply(ctx.attribute("subject"), ctx.bodyAsBytes()).toString());
  }

  private static void json(Context ctx, String body) {
    ctx.contentType("application/json").header("Cache-Control", "no-store").result(body);
  }

  /** Each failure as a problem document: one sentence saying what to fix. */
  private static void problems(JavalinConfig c) {
    c.routes.exception(
        Refused.class,
        (e, ctx) -> {
          e.headers.forEach(ctx::header);
          problem(ctx, e.status, e.getMessage());
        });
    c.routes.exception(ConfigurationException.class, (e, ctx) -> problem(ctx, 400, e.getMessage()));
    c.routes.exception(RefusedException.class, (e, ctx) -> problem(ctx, 409, e.getMessage()));
    c.routes.exception(
        MessagingException.class,
        (e, ctx) -> {
          log.warn("{} {}: {}", ctx.method(), ctx.path(), e.toString());
          problem(ctx, 503, e.getMessage());
        });
    c.routes.exception(
        Exception.class,
        (e, ctx) -> {
          log.error("{} {} failed", ctx.method(), ctx.path(), e);
          problem(ctx, 500, "The request failed; the console's log has the details.");
        });
  }

  private static void problem(Context ctx, int status, String detail) {
    var body = JSON.createObjectNode();
    body.put("status", status);
    body.put("detail", detail);
    ctx.status(status).contentType(ApiGate.Refusal.CONTENT_TYPE).result(body.toString());
  }

  private static void serve(Context ctx, String[] file) {
    String name = file[0].startsWith("/") ? file[0] : "/dev/ordinal/console/" + file[0];
    try (InputStream in = ConsoleServer.class.getResourceAsStream(name)) {
      if (in == null) {
        throw new IllegalStateException("missing from the console's jar: " + name);
      }
      ctx.contentType(file[1]).result(in.readAllBytes());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static String webJarVersion(String artifact) {
    String props = "/META-INF/maven/org.webjars.npm/" + artifact + "/pom.properties";
    try (InputStream in = ConsoleServer.class.getResourceAsStream(props)) {
      if (in == null) {
        throw new IllegalStateException("the " + artifact + " WebJar is not on the classpath");
      }
      Properties p = new Properties();
      p.load(in);
      return p.getProperty("version");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Where the page is: {@code http://host:port/}. */
  public String url() {
    return "http://" + host + ":" + port() + "/";
  }

  /** The port it listens on (the one picked when 0 was asked). */
  public int port() {
    return app.port();
  }

  /** The port of the console's {@code /health/*} and {@code /metrics} (-1 when off). */
  public int managementPort() {
    return runtime.managementPort();
  }

  @Override
  public void close() {
    app.stop();
    runtime.close();
    reader.close();
  }
}

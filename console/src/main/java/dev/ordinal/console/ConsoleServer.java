package dev.ordinal.console;

import dev.ordinal.runtime.PortInUseException;
import io.javalin.Javalin;
import io.javalin.http.Context;
import io.javalin.util.JavalinBindException;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.time.Clock;
import java.util.Map;
import java.util.Properties;
import org.eclipse.jetty.util.thread.QueuedThreadPool;

/**
 * {@code ./ordinal console}: the page ({@code GET /}), its script, style and plotting library, and
 * {@code GET /api/pipe}, the snapshot the page shows ({@link PipeReader}). Read-only: there is no
 * route that changes anything.
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

  private final Javalin app;
  private final PipeReader reader;

  private final String host;

  private ConsoleServer(Javalin app, PipeReader reader, String host) {
    this.app = app;
    this.host = host;
    this.reader = reader;
  }

  /**
   * Serves the console on {@code settings}' host and port.
   *
   * @throws PortInUseException with one sentence when the port is taken
   */
  public static ConsoleServer start(ConsoleSettings settings) {
    PipeReader reader = new PipeReader(settings, Clock.systemUTC());
    Javalin app =
        Javalin.create(
            c -> {
              c.startup.showJavalinBanner = false;
              QueuedThreadPool pool = new QueuedThreadPool(8, 2);
              pool.setName("console");
              pool.setDaemon(true);
              c.jetty.threadPool = pool;
              FILES.forEach((path, file) -> c.routes.get(path, ctx -> serve(ctx, file)));
              c.routes.get(
                  "/api/pipe",
                  ctx ->
                      ctx.contentType("application/json")
                          .header("Cache-Control", "no-store")
                          .result(reader.snapshot().toString()));
            });
    try {
      app.start(settings.host(), settings.port());
    } catch (JavalinBindException e) {
      app.stop();
      reader.close();
      throw new PortInUseException(
          "The console's port "
              + settings.host()
              + ":"
              + settings.port()
              + " is in use: pick another with --port (0 picks a free one).",
          e);
    }
    return new ConsoleServer(app, reader, settings.host());
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

  @Override
  public void close() {
    app.stop();
    reader.close();
  }
}

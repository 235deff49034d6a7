package dev.ordinal.cli;

import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/**
 * A container's health check, for runtimes that run a command in the container to probe it (Docker
 * Compose's {@code healthcheck}); the image has no shell and no curl. It asks a service's
 * management port on this host and exits 0 when the answer is 200, 1 otherwise (another status, no
 * answer within {@link #TIMEOUT}), 2 on bad arguments:
 *
 * <pre>
 * java -cp /app/classes dev.ordinal.cli.HealthProbe 9412 /health/ready
 * </pre>
 *
 * It loads nothing but this class, so the JVM it starts is small and quick. Kubernetes probes the
 * port over HTTP itself and needs none of this.
 */
public final class HealthProbe {
  /** The longest wait for an answer. */
  static final Duration TIMEOUT = Duration.ofSeconds(3);

  /** The path asked when none is given. */
  static final String DEFAULT_PATH = "/health/ready";

  private HealthProbe() {}

  public static void main(String[] args) {
    System.exit(probe(args, System.out, System.err));
  }

  /**
   * Asks {@code http://127.0.0.1:PORT/PATH}; the exit status (0 healthy, 1 not, 2 bad arguments),
   * one line on {@code out} or {@code err}.
   */
  static int probe(String[] args, PrintStream out, PrintStream err) {
    if (args.length < 1 || args.length > 2) {
      err.println("usage: HealthProbe PORT [PATH] (default path " + DEFAULT_PATH + ")");
      return 2;
    }
    int port;
    try {
      port = Integer.parseInt(args[0]);
    } catch (NumberFormatException e) {
      port = -1;
    }
    if (port < 1 || port > 65535) {
      err.println("HealthProbe: the port must be 1 to 65535, not " + args[0] + ".");
      return 2;
    }
    String path = args.length == 2 ? args[1] : DEFAULT_PATH;
    if (!path.startsWith("/")) {
      err.println("HealthProbe: the path must start with /, as " + DEFAULT_PATH + " does.");
      return 2;
    }
    URI uri = URI.create("http://127.0.0.1:" + port + path);
    HttpClient http = HttpClient.newBuilder().connectTimeout(TIMEOUT).build();
    try {
      HttpResponse<Void> answer =
          http.send(
              HttpRequest.newBuilder(uri).timeout(TIMEOUT).build(),
              HttpResponse.BodyHandlers.discarding());
      if (answer.statusCode() == 200) {
        out.println(uri + ": 200");
        return 0;
      }
      err.println(uri + ": " + answer.statusCode());
      return 1;
    } catch (IOException e) {
      err.println(uri + ": no answer (" + e + ")");
      return 1;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      err.println(uri + ": interrupted");
      return 1;
    }
  }
}

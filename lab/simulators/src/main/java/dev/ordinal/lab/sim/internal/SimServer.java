package dev.ordinal.lab.sim.internal;

import io.javalin.Javalin;
import io.javalin.config.RoutesConfig;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** One simulator's HTTP server and its pacer: started once, closed once. Thread-safe. */
public final class SimServer implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(SimServer.class);

  private final String name;
  private final int requestedPort;
  private final Pacer pacer;
  private Javalin app; // guarded by this
  private int port = -1; // guarded by this
  private boolean closed; // guarded by this

  public SimServer(String name, int port) {
    if (port < 0 || port > 65535) {
      throw new IllegalArgumentException("port must be 0 (any free port) to 65535: " + port);
    }
    this.name = name;
    this.requestedPort = port;
    this.pacer = new Pacer(name.replace(' ', '-') + "-timer");
  }

  public Pacer pacer() {
    return pacer;
  }

  public synchronized void start(Consumer<RoutesConfig> routes) {
    if (closed) {
      throw new IllegalStateException(
          "A closed " + name + " does not start again; create a new one.");
    }
    if (app != null) {
      return;
    }
    Javalin a = SimHttp.create(routes);
    port = SimHttp.start(a, requestedPort, name);
    app = a;
    log.info("{} listening on port {}", name, port);
  }

  public synchronized int port() {
    if (app == null) {
      throw new IllegalStateException("start() the " + name + " first");
    }
    return port;
  }

  /** Answers what is still waiting with 503, then stops the server. */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    pacer.close();
    if (app != null) {
      app.stop();
      log.info("{} on port {} stopped", name, port);
    }
  }
}

package dev.ordinal.runtime;

import dev.ordinal.runtime.settings.Check;
import dev.ordinal.runtime.settings.Setting;
import java.util.Optional;
import java.util.function.Function;

/**
 * Where a service serves {@code /health/live}, {@code /health/ready} and {@code /metrics}. Its two
 * settings ({@link #HOST}, {@link #portSetting(int)}) are among each service's; the service's
 * settings record checks them with those before it holds this.
 *
 * @param host the interface to bind; {@link #DEFAULT_HOST} (this machine only) unless the metrics
 *     and health are to be reached from elsewhere
 * @param port the port; 0 picks a free one, -1 serves nothing
 */
public record ManagementSettings(String host, int port) {
  public static final String DEFAULT_HOST = "127.0.0.1";

  /** {@code --management-host}. */
  public static final Setting<String> HOST =
      Setting.string(
          "management-host",
          DEFAULT_HOST,
          "Interface the management port listens on: 127.0.0.1 is this machine only, 0.0.0.0"
              + " every interface",
          Check.notBlank());

  private static final Check<Integer> PORT = Check.range(-1, 65535);

  public ManagementSettings {
    host = host == null || host.isBlank() ? DEFAULT_HOST : host;
  }

  /** {@code --management-port}, with a service's own default. */
  public static Setting<Integer> portSetting(int defaultPort) {
    return Setting.integer(
        "management-port",
        defaultPort,
        "Port of GET /health/live, GET /health/ready and GET /metrics; 0 picks a free one, -1"
            + " turns them off",
        PORT);
  }

  /**
   * {@code management}, or this machine only on {@code port}'s default when it is null; its port
   * checked with {@code port}, then its host with {@link #HOST}: what a service's settings record
   * holds.
   *
   * @param port the service's {@link #portSetting(int)}
   * @param refusal the exception of the first problem's sentence ({@code --management-port must be
   *     -1 to 65535, not 70000})
   */
  public static <X extends RuntimeException> ManagementSettings checked(
      ManagementSettings management, Setting<Integer> port, Function<String, X> refusal) {
    ManagementSettings m = management == null ? local(port.defaultValue()) : management;
    Optional<String> problem = port.problem(m.port()).or(() -> HOST.problem(m.host()));
    if (problem.isPresent()) {
      throw refusal.apply(problem.get());
    }
    return m;
  }

  /** On {@code port} of this machine only. */
  public static ManagementSettings local(int port) {
    return new ManagementSettings(DEFAULT_HOST, port);
  }

  /** No management port (tests that read the health from the object). */
  public static ManagementSettings off() {
    return new ManagementSettings(DEFAULT_HOST, -1);
  }
}

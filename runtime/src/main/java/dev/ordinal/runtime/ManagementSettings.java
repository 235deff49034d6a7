package dev.ordinal.runtime;

/**
 * Where a service serves {@code /health/live}, {@code /health/ready} and {@code /metrics}.
 *
 * @param host the interface to bind; {@link #DEFAULT_HOST} (this machine only) unless the metrics
 *     and health are to be reached from elsewhere
 * @param port the port; 0 picks a free one, -1 serves nothing
 */
public record ManagementSettings(String host, int port) {
  public static final String DEFAULT_HOST = "127.0.0.1";

  public ManagementSettings {
    host = host == null || host.isBlank() ? DEFAULT_HOST : host;
    if (port < -1 || port > 65535) {
      throw new IllegalArgumentException("the management port must be -1 to 65535, not " + port);
    }
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

package dev.ordinal.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ordinal.runtime.ManagementSettings;
import dev.ordinal.runtime.ServiceRuntime;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import org.junit.jupiter.api.Test;

/** The container health check against a real management port ({@link ServiceRuntime}'s). */
class HealthProbeTest {
  private final ByteArrayOutputStream out = new ByteArrayOutputStream();
  private final ByteArrayOutputStream err = new ByteArrayOutputStream();

  private int probe(String... args) {
    return HealthProbe.probe(
        args,
        new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8));
  }

  @Test
  void aLiveServiceIsHealthyAndOneNotYetReadyIsNot() {
    try (ServiceRuntime rt =
        new ServiceRuntime("probe-test", ManagementSettings.local(0), Clock.systemUTC())) {
      String port = String.valueOf(rt.managementPort());
      assertThat(probe(port, "/health/live")).isZero();
      // ready is 503 until the service has started
      assertThat(probe(port)).isEqualTo(1);
      assertThat(err.toString(StandardCharsets.UTF_8)).contains("/health/ready: 503");
      rt.started();
      assertThat(probe(port, "/health/ready")).isZero();
    }
  }

  @Test
  void aPortNobodyListensOnIsUnhealthy() throws Exception {
    int free;
    try (ServerSocket s = new ServerSocket(0)) {
      free = s.getLocalPort();
    }
    assertThat(probe(String.valueOf(free))).isEqualTo(1);
    assertThat(err.toString(StandardCharsets.UTF_8)).contains("no answer");
  }

  @Test
  void badArgumentsExitTwoWithOneSentence() {
    assertThat(probe()).isEqualTo(2);
    assertThat(probe("70000")).isEqualTo(2);
    assertThat(probe("9412", "health/ready")).isEqualTo(2);
    assertThat(err.toString(StandardCharsets.UTF_8).lines())
        .containsExactly(
            "usage: HealthProbe PORT [PATH] (default path /health/ready)",
            "HealthProbe: the port must be 1 to 65535, not 70000.",
            "HealthProbe: the path must start with /, as /health/ready does.");
  }
}

package dev.ordinal.lab.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.io.IOException;
import org.junit.jupiter.api.Test;

class WrkLoadTest {
  @Test
  void ordersPerSecondCountOnlyTwoHundredsAndFailuresAddSocketErrors() throws IOException {
    String out =
        "Running 5s test @ http://localhost:1/orders\n"
            + "  2 threads and 32 connections\n"
            + "ORDINAL-WRK 1510 5000000 10 2 97500 290800\n"
            + "Requests/sec:    302.00\n";
    WrkLoad.Result r = WrkLoad.parse(32, out);
    assertThat(r.connections()).isEqualTo(32);
    assertThat(r.requests()).isEqualTo(1510);
    assertThat(r.ordersPerSecond()).isCloseTo(300.0, within(1e-9));
    assertThat(r.failed()).isEqualTo(12);
    assertThat(r.p50Ms()).isCloseTo(97.5, within(1e-9));
    assertThat(r.p99Ms()).isCloseTo(290.8, within(1e-9));
  }

  @Test
  void outputWithoutTheScriptsLineIsAnError() {
    assertThatThrownBy(() -> WrkLoad.parse(8, "unable to connect to localhost:1\n"))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("ORDINAL-WRK")
        .hasMessageContaining("unable to connect");
  }
}

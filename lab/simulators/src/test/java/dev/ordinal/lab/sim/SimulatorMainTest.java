package dev.ordinal.lab.sim;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class SimulatorMainTest {
  private final ByteArrayOutputStream err = new ByteArrayOutputStream();
  private final PrintStream errStream = new PrintStream(err, true, StandardCharsets.UTF_8);

  @Test
  void withoutArgumentsTheDefaultPorts() {
    assertThat(SimulatorMain.ports(new String[0], errStream)).containsExactly(8091, 8092);
  }

  @Test
  void argumentsChooseThePorts() {
    assertThat(SimulatorMain.ports(new String[] {"0", "9000"}, errStream)).containsExactly(0, 9000);
    assertThat(SimulatorMain.ports(new String[] {"7000"}, errStream)).containsExactly(7000, 8092);
  }

  @Test
  void aBadPortPrintsTheUsage() {
    assertThat(SimulatorMain.ports(new String[] {"http"}, errStream)).isNull();
    assertThat(err.toString(StandardCharsets.UTF_8)).contains("'http' is not a port", "Usage:");
  }
}

package dev.ordinal.lab.devstack;

import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import java.util.Map;
import org.junit.jupiter.api.Test;
import org.testcontainers.DockerClientFactory;

class ContainerStackTest {

  @Test
  void askingForTestcontainersWithoutDockerFailsFastWithAClearSentence() {
    assumeFalse(
        DockerClientFactory.instance().isDockerAvailable(),
        "a Docker engine is present here; this test is about machines without one");
    StackConfig config = StackConfig.fromEnvironment(Map.of("ORDINAL_STACK", "testcontainers"));
    assertThatThrownBy(() -> Stack.start(config))
        .isInstanceOf(StackException.class)
        .hasMessageContaining("needs a Docker engine")
        .hasMessageContaining("unset ORDINAL_STACK");
  }
}

package dev.ordinal.console;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** An action's origin check: the console's own host and port, over http or a proxy's https. */
class ConsoleServerTest {
  @Test
  void aPageOfTheConsolesOwnHostAndPortIsItsOwnWhateverTheScheme() {
    assertThat(ConsoleServer.sameAuthority("http://127.0.0.1:9420", "127.0.0.1:9420")).isTrue();
    assertThat(ConsoleServer.sameAuthority("https://console.example", "console.example")).isTrue();
    assertThat(ConsoleServer.sameAuthority("http://127.0.0.1:9421", "127.0.0.1:9420")).isFalse();
    assertThat(ConsoleServer.sameAuthority("http://elsewhere.test", "127.0.0.1:9420")).isFalse();
    assertThat(ConsoleServer.sameAuthority("null", "127.0.0.1:9420")).isFalse();
    assertThat(ConsoleServer.sameAuthority("http://x:1", null)).isFalse();
  }
}

package dev.ordinal.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * {@code ./ordinal order-service}'s authentication and host options: refused before any server is
 * touched (exit 2, one sentence), and described in {@code --help}.
 */
class OrderServiceCommandTest extends CommandTest {
  private int run(String... args) {
    CommandLine cli = printingHere(Main.commandLine(Map.of()));
    return cli.execute(args);
  }

  @Test
  void withoutAuthTheCommandIsRefusedSayingWhatToSet() {
    assertThat(run("order-service")).isEqualTo(2);
    assertThat(err.toString().lines().findFirst().orElse(""))
        .isEqualTo(
            "order-service needs --auth: set --auth jwt with --jwt-issuer, --jwt-audience and"
                + " --jwks-file or --jwks-url, or --auth none for local use (every caller may"
                + " then read and cancel every order)");
    assertThat(out.toString()).doesNotContain("listening");
  }

  @Test
  void jwtWithoutItsSettingsIsRefusedNamingTheFirstMissing() {
    assertThat(run("order-service", "--auth", "jwt", "--jwt-issuer", "https://issuer.example"))
        .isEqualTo(2);
    assertThat(err.toString().lines().findFirst().orElse(""))
        .isEqualTo("--auth jwt needs --jwt-audience: the audience (aud) of tokens for this API");
  }

  @Test
  void anUnknownAuthIsRefused() {
    assertThat(run("order-service", "--auth", "basic")).isEqualTo(2);
    assertThat(err.toString().lines().findFirst().orElse(""))
        .isEqualTo("--auth must be jwt or none, not basic");
  }

  @Test
  void helpDescribesAuthenticationAndTheHost() {
    assertThat(run("order-service", "--help")).isZero();
    assertThat(out.toString())
        .contains("--auth=<auth>")
        .contains("(default not set: refused)")
        .contains("--host=<host>")
        .contains("--jwt-issuer=<jwt-issuer>")
        .contains("--jwt-audience=<jwt-audience>")
        .contains("--jwks-file=<jwks-file>")
        .contains("--jwks-url=<jwks-url>")
        .contains("--jwt-clock-skew=<jwt-clock-skew>")
        .contains("orders:write, orders:read, orders:cancel");
  }
}

package dev.ordinal.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Bad input to {@code ./ordinal billing} is one sentence and exit 2, before any server is asked.
 */
class BillingCommandTest extends CommandTest {
  private int run(String... args) {
    return execute(new BillingCommand(), args);
  }

  private String firstErrorLine() {
    return err.toString().lines().findFirst().orElse("");
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "--concurrency|0|--concurrency must be 1 to 256, not 0",
        "--issuer-workers|300|--issuer-workers must be 1 to 256, not 300",
        "--management-port|70000|--management-port must be -1 to 65535, not 70000",
        "--issuer-lease|PT5S|--issuer-lease must be longer than the integrator timeout (PT5S), not"
            + " PT5S",
        "--payment-lease|PT0S|--payment-lease must be positive, not PT0S",
        "--payment-lease|PT5S|--payment-lease must be longer than the gateway timeout (PT5S), not"
            + " PT5S",
        "--session-timeout|PT1S|--session-timeout must be 6 s to 30 min, not PT1S",
        "--integrator-url|ftp://host|--integrator-url must be an http(s) URL such as"
            + " http://localhost:8091, not ftp://host",
        "--gateway-url|localhost:8092|--gateway-url must be an http(s) URL such as"
            + " http://localhost:8091, not localhost:8092",
        "--inbox-retention|PT0S|--inbox-retention must be positive, not PT0S",
        "--replay-window|-PT1H|--replay-window must not be negative, not PT-1H",
        "--group|' '|--group must not be empty",
      })
  void badOptionsAreOneSentenceAndExitTwo(String option, String value, String sentence) {
    assertThat(run(option, value)).isEqualTo(2);
    assertThat(firstErrorLine()).isEqualTo(sentence);
    assertThat(out.toString()).isEmpty();
  }

  @Test
  void aMalformedDurationNamesTheOption() {
    assertThat(run("--inbox-retention", "30 days")).isEqualTo(2);
    assertThat(err.toString()).contains("--inbox-retention");
  }

  @Test
  void helpDescribesEveryOption() {
    assertThat(run("--help")).isZero();
    assertThat(out.toString())
        .contains("--concurrency")
        .contains("--group")
        .contains("--inbox-retention")
        .contains("--replay-window")
        .contains("--allow-short-retention")
        .contains("--integrator-url")
        .contains("--gateway-url")
        .contains("--management-port")
        .contains("--management-host")
        .contains("--outbox-retention-age")
        .contains("--issuer-lease")
        .contains("--session-timeout")
        .contains("Exit status");
  }
}

package dev.ordinal.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Bad input to {@code ./ordinal lag} is one sentence and exit 2, before Kafka is asked. */
class LagCommandTest extends CommandTest {
  private int run(Map<String, String> env, String... args) {
    LagCommand command = new LagCommand();
    command.env = env;
    command.kafkaTimeout = Duration.ofSeconds(1);
    return execute(command, args);
  }

  /** A bootstrap address nothing listens on: never reached, the options are refused first. */
  static final Map<String, String> KAFKA = Map.of("ORDINAL_KAFKA_BOOTSTRAP", "localhost:1");

  @Test
  void withoutAnExternalKafkaItRefusesInOneSentence() {
    assertThat(run(Map.of())).isEqualTo(2);
    assertThat(err.toString())
        .isEqualTo(
            "ordinal: lag reads the consumer groups of a running Kafka cluster: set"
                + " ORDINAL_KAFKA_BOOTSTRAP=host:port (or kafka.bootstrap in the ORDINAL_CONFIG"
                + " file)."
                + System.lineSeparator());
    assertThat(out.toString()).isEmpty();
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "--interval PT1S|--interval only applies with --watch: add --watch or drop --interval.",
        "--count 3|--count only applies with --watch: add --watch or drop --count.",
        "--metrics-port 9500|--metrics-port only applies with --watch: add --watch or drop"
            + " --metrics-port.",
        "--watch --interval PT0.01S|--interval must be at least PT0.1S, not PT0.01S.",
        "--watch --window PT2S|--window PT2S must be longer than --interval PT2S, or no two samples"
            + " would ever be compared.",
        "--stall-after PT10M|--stall-after PT10M must be positive and shorter than --window PT5M.",
        "--window PT0S|--window must be positive, not PT0S.",
        "--watch --count 0|--count must be 1 or more, not 0.",
        "--watch --metrics-port 70000|--metrics-port must be 0 to 65535, not 70000.",
      })
  void conflictingOrOutOfRangeOptionsAreOneSentenceAndExitTwo(String args, String sentence) {
    assertThat(run(KAFKA, args.split(" "))).isEqualTo(2);
    assertThat(err.toString()).isEqualTo("ordinal: " + sentence + System.lineSeparator());
    assertThat(out.toString()).isEmpty();
  }

  @Test
  void aBlankGroupIsRefused() {
    assertThat(run(KAFKA, "--group", " ")).isEqualTo(2);
    assertThat(err.toString())
        .isEqualTo(
            "ordinal: --group must name a consumer group, not be blank." + System.lineSeparator());
  }

  @Test
  void aSlotWithoutADatabaseIsRefused() {
    assertThat(run(KAFKA, "--slot", "ordinal_outbox")).isEqualTo(2);
    assertThat(err.toString())
        .startsWith(
            "ordinal: --slot reads the replication slots from PostgreSQL: set ORDINAL_DB_URL");
  }

  @Test
  void anUnparsableTimeNamesTheOptionWithoutAStackTrace() {
    assertThat(run(KAFKA, "--watch", "--interval", "soon")).isEqualTo(2);
    assertThat(err.toString().lines().findFirst().orElseThrow())
        .isEqualTo(
            "Invalid value for option '--interval': 'soon' is not a duration; use e.g. 30s, 2m or"
                + " PT30S");
    assertThat(err.toString()).doesNotContain("Exception").doesNotContain("\tat ");
  }

  @Test
  void anUnreachableKafkaIsOneSentenceNamingTheSetting() {
    assertThat(run(Map.of("ORDINAL_KAFKA_BOOTSTRAP", "localhost:1"), "--group", "billing"))
        .isEqualTo(2);
    assertThat(err.toString())
        .startsWith(
            "ordinal: No Kafka broker answered at localhost:1 (ORDINAL_KAFKA_BOOTSTRAP) within 1 s")
        .doesNotContain("\tat ");
  }

  @Test
  void helpListsTheOptions() {
    assertThat(run(Map.of(), "--help")).isZero();
    assertThat(out.toString())
        .contains("--group", "--topic", "--json", "--watch", "--interval", "--metrics-port");
  }
}

package dev.ordinal.runtime.settings;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class SettingTest {
  static final Setting<Integer> CONCURRENCY =
      Setting.integer("concurrency", 4, "Messages applied in parallel", Check.range(1, 256));
  static final Setting<Duration> LEASE =
      Setting.duration("issuer-lease", Duration.ofSeconds(30), "The lease", Check.positive());
  static final Setting<String> INSTANCE_ID =
      Setting.optionalString("instance-id", "random", "This instance's name", Check.notBlank());

  enum Mode {
    DELETE_ON_WRITE,
    AFTER_AGE
  }

  @Test
  void theOptionTheVariableAndTheKeyAreDerivedFromTheName() {
    assertThat(LEASE.option()).isEqualTo("--issuer-lease");
    assertThat(LEASE.variable("billing")).isEqualTo("ORDINAL_BILLING_ISSUER_LEASE");
    assertThat(LEASE.key("billing")).isEqualTo("billing.issuer-lease");
    assertThat(LEASE.variable("order-service")).isEqualTo("ORDINAL_ORDER_SERVICE_ISSUER_LEASE");
    assertThat(Setting.variableOf("relay.setup-sql.role"))
        .isEqualTo("ORDINAL_RELAY_SETUP_SQL_ROLE");
  }

  @Test
  void aProblemIsOneSentenceNamingTheOption() {
    assertThat(CONCURRENCY.problem(0)).contains("--concurrency must be 1 to 256, not 0");
    assertThat(CONCURRENCY.problem(256)).isEmpty();
    assertThat(CONCURRENCY.problem(null)).contains("--concurrency must be set");
    assertThat(LEASE.problem(Duration.ZERO)).contains("--issuer-lease must be positive, not PT0S");
    assertThat(INSTANCE_ID.problem(null)).as("no default: null is 'not set'").isEmpty();
    assertThat(INSTANCE_ID.problem(" ")).contains("--instance-id must not be empty");
  }

  @Test
  void theDefaultIsWrittenAsItIsParsed() {
    assertThat(LEASE.defaultText()).isEqualTo("30s");
    assertThat(LEASE.parse(LEASE.defaultText())).isEqualTo(LEASE.defaultValue());
    assertThat(CONCURRENCY.defaultText()).isEqualTo("4");
    assertThat(INSTANCE_ID.defaultText()).isEqualTo("random");
    assertThat(CONCURRENCY.withDefault(8).defaultText()).isEqualTo("8");
    assertThat(CONCURRENCY.withDefault(8).problem(0))
        .as("a derived setting keeps the check")
        .contains("--concurrency must be 1 to 256, not 0");
  }

  @Test
  void choicesAreWrittenInLowerCaseWithDashes() {
    Setting<Mode> mode = Setting.choice("outbox-retention", Mode.class, Mode.AFTER_AGE, "What");
    assertThat(mode.defaultText()).isEqualTo("after-age");
    assertThat(mode.parse("delete-on-write")).isEqualTo(Mode.DELETE_ON_WRITE);
    assertThatThrownBy(() -> mode.parse("never"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("'never' is not delete-on-write or after-age");
  }

  @Test
  void listsAreCommaSeparated() {
    Setting<List<UUID>> ids =
        Setting.list(
            "skip-event", UUID.class, UUID::fromString, List.of(), "none", "Ids", Check.any());
    assertThat(ids.defaultText()).isEqualTo("none");
    UUID a = UUID.fromString("ff35e1a3-d55a-484c-8896-8f864d80c6ee");
    assertThat(ids.parse(a + ", " + a)).containsExactly(a, a);
    assertThat(ids.format(List.of(a, a))).isEqualTo(a + "," + a);
  }

  @Test
  void valuesFallBackToTheDefaultAndTakeOnlyTheirSettings() {
    SettingValues values = new SettingValues(List.of(CONCURRENCY, LEASE));
    assertThat(values.get(CONCURRENCY)).isEqualTo(4);
    values.set(CONCURRENCY, 8);
    assertThat(values.get(CONCURRENCY)).isEqualTo(8);
    assertThat(values.isSet(LEASE)).isFalse();
    assertThatThrownBy(() -> values.set(INSTANCE_ID, "x"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("--instance-id is not one of [--concurrency, --issuer-lease]");
    SettingValues copy = new SettingValues(List.of(CONCURRENCY, LEASE)).setAll(values);
    assertThat(copy.get(CONCURRENCY)).isEqualTo(8);
    assertThat(copy.isSet(LEASE)).isFalse();
  }

  @ParameterizedTest
  @CsvSource({
    "PT30S,30000",
    "pt30s,30000",
    "-PT1H,-3600000",
    "P7D,604800000",
    "500ms,500",
    "30s,30000",
    "2m,120000",
    "1h,3600000",
    "7d,604800000",
    "0s,0"
  })
  void durationsAreIso8601OrTheShortForm(String text, long millis) {
    assertThat(Durations.parse(text)).isEqualTo(Duration.ofMillis(millis));
  }

  @ParameterizedTest
  @CsvSource({"soon", "30", "30 s", "2 days", "1w", "''", "PT"})
  void anythingElseIsOneSentenceWithExamples(String text) {
    assertThatThrownBy(() -> Durations.parse(text))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("'" + text + "' is not a duration; use e.g. 30s, 2m or PT30S");
  }

  @ParameterizedTest
  @CsvSource({"PT0S,0s", "PT0.5S,500ms", "PT30S,30s", "PT1M,1m", "PT1H,1h", "PT24H,1d", "P30D,30d"})
  void durationsAreWrittenInTheLargestWholeUnit(String iso, String text) {
    assertThat(Durations.format(Duration.parse(iso))).isEqualTo(text);
    assertThat(Durations.parse(text)).isEqualTo(Duration.parse(iso));
  }
}

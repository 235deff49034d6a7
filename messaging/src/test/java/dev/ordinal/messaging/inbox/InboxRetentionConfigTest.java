package dev.ordinal.messaging.inbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.ordinal.messaging.ConfigurationException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.assertj.core.api.AbstractThrowableAssert;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

class InboxRetentionConfigTest {
  static final Duration DAY = Duration.ofDays(1);

  @Test
  void ofUsesNoOverrideAndTheDefaultBatchSizeAndInterval() {
    InboxRetentionConfig c = InboxRetentionConfig.of("billing", DAY, Duration.ofHours(12));
    assertThat(c.consumer()).isEqualTo("billing");
    assertThat(c.retention()).isEqualTo(DAY);
    assertThat(c.maxReplayWindow()).isEqualTo(Duration.ofHours(12));
    assertThat(c.override()).isFalse();
    assertThat(c.batchSize()).isEqualTo(1000);
    assertThat(c.interval()).isEqualTo(Duration.ofMinutes(1));
    assertThat(c.withOverride(true).override()).isTrue();
    assertThat(c.withBatchSize(7).batchSize()).isEqualTo(7);
    assertThat(c.withInterval(null).interval()).isEqualTo(InboxRetentionConfig.DEFAULT_INTERVAL);
  }

  @Test
  void theConsumerHasOneTo128Characters() {
    assertThat(InboxRetentionConfig.of("x".repeat(128), DAY, DAY).consumer()).hasSize(128);
    for (String bad : new String[] {null, "", "  ", "x".repeat(129)}) {
      assertThatThrownBy(() -> InboxRetentionConfig.of(bad, DAY, DAY))
          .isInstanceOf(ConfigurationException.class)
          .hasMessage(
              "consumer must have 1 to 128 characters: the inbox consumer name whose rows are"
                  + " deleted");
    }
  }

  @Test
  void theRetentionMustBeSetAndPositive() {
    assertThatThrownBy(() -> InboxRetentionConfig.of("billing", null, DAY))
        .isInstanceOf(ConfigurationException.class)
        .hasMessage("--inbox-retention must be set");
    assertThatThrownBy(() -> InboxRetentionConfig.of("billing", Duration.ZERO, Duration.ZERO))
        .isInstanceOf(ConfigurationException.class)
        .hasMessage("--inbox-retention must be positive, not PT0S");
    assertThatThrownBy(() -> InboxRetentionConfig.of("billing", Duration.ofSeconds(-1), DAY))
        .isInstanceOf(ConfigurationException.class)
        .hasMessage("--inbox-retention must be positive, not PT-1S");
  }

  @Test
  void theReplayWindowMustBeSetAndMayBeZero() {
    assertThat(InboxRetentionConfig.of("billing", DAY, Duration.ZERO).maxReplayWindow())
        .isEqualTo(Duration.ZERO);
    assertThatThrownBy(() -> InboxRetentionConfig.of("billing", DAY, null))
        .isInstanceOf(ConfigurationException.class)
        .hasMessage("--replay-window must be set");
    assertThatThrownBy(() -> InboxRetentionConfig.of("billing", DAY, Duration.ofHours(-2)))
        .isInstanceOf(ConfigurationException.class)
        .hasMessage("--replay-window must not be negative, not PT-2H");
  }

  @Test
  void theBatchSizeIsOneToTenThousand() {
    InboxRetentionConfig c = InboxRetentionConfig.of("billing", DAY, DAY);
    assertThat(c.withBatchSize(1).batchSize()).isEqualTo(1);
    assertThat(c.withBatchSize(10_000).batchSize()).isEqualTo(10_000);
    assertThatThrownBy(() -> c.withBatchSize(0))
        .isInstanceOf(ConfigurationException.class)
        .hasMessage("batchSize must be between 1 and 10000: 0");
    assertThatThrownBy(() -> c.withBatchSize(10_001))
        .isInstanceOf(ConfigurationException.class)
        .hasMessage("batchSize must be between 1 and 10000: 10001");
  }

  @Test
  void theIntervalMustBePositive() {
    InboxRetentionConfig c = InboxRetentionConfig.of("billing", DAY, DAY);
    assertThatThrownBy(() -> c.withInterval(Duration.ZERO))
        .isInstanceOf(ConfigurationException.class)
        .hasMessage("interval must be positive: PT0S");
    assertThatThrownBy(() -> c.withInterval(Duration.ofMillis(-5)))
        .isInstanceOf(ConfigurationException.class)
        .hasMessage("interval must be positive: PT-0.005S");
  }

  @Test
  void aRetentionShorterThanTheReplayWindowIsRefusedNamingBoth() {
    InboxRetentionConfig c = InboxRetentionConfig.of("billing", DAY, Duration.ofHours(72));
    assertRefused(c, Map.of())
        .hasMessage(
            "Inbox retention PT24H for consumer billing is shorter than the replay window PT72H"
                + " operators may replay; raise the retention or pass --allow-short-retention");
  }

  @Test
  void aRetentionEqualToTheReplayWindowAndEveryTopicsRetentionIsAccepted() {
    InboxRetentionConfig c = InboxRetentionConfig.of("billing", Duration.ofHours(72), DAY);
    assertAccepted(c, Map.of("orders", Duration.ofHours(72), "refunds", DAY));
    assertAccepted(InboxRetentionConfig.of("billing", DAY, DAY), Map.of());
  }

  @Test
  void aRetentionShorterThanATopicsRetentionIsRefusedNamingTheTopic() {
    InboxRetentionConfig c = InboxRetentionConfig.of("billing", Duration.ofHours(72), DAY);
    assertRefused(c, Map.of("orders", Duration.ofDays(7), "refunds", DAY))
        .hasMessage(
            "Inbox retention PT72H for consumer billing is shorter than the PT168H topic orders may"
                + " keep a record, which could be replayed after its inbox row is deleted; raise"
                + " the retention or pass --allow-short-retention");
  }

  @Test
  void whenSeveralWindowsAreLongerTheLongestIsNamedSoRaisingToItClosesAll() {
    InboxRetentionConfig c = InboxRetentionConfig.of("billing", DAY, Duration.ofDays(3));
    assertRefused(c, Map.of("a", Duration.ofDays(2), "b", Duration.ofDays(9)))
        .hasMessageStartingWith(
            "Inbox retention PT24H for consumer billing is shorter than the PT216H topic b");
    assertRefused(c, Map.of("a", Duration.ofDays(2)))
        .hasMessageStartingWith(
            "Inbox retention PT24H for consumer billing is shorter than the replay window PT72H");
  }

  @Test
  void aTopicThatKeepsRecordsForeverCanNeverBeCovered() {
    InboxRetentionConfig c = InboxRetentionConfig.of("billing", Duration.ofDays(3650), DAY);
    String refusal =
        "Inbox retention PT87600H for consumer billing cannot cover topic orders, which keeps"
            + " records forever (retention.ms=-1 or compacted), so a replay of it could apply a"
            + " message twice; give the topic a finite retention.ms or pass --allow-short-retention";
    assertRefused(c, Map.of("orders", InboxRetention.FOREVER, "refunds", DAY)).hasMessage(refusal);
    // Kafka's retention.ms=-1, as a duration
    assertRefused(c, Map.of("orders", Duration.ofMillis(-1))).hasMessage(refusal);
  }

  @Test
  void withOverrideEveryGapIsAcceptedAndWarnedAboutSayingWhatMayBeAppliedTwice() {
    InboxRetentionConfig c =
        InboxRetentionConfig.of("billing", DAY, Duration.ofHours(72)).withOverride(true);
    List<ILoggingEvent> logged =
        logged(
            c,
            Map.of("orders", Duration.ofDays(7), "audit", InboxRetention.FOREVER, "refunds", DAY));
    assertThat(logged).allMatch(e -> e.getLevel() == Level.WARN);
    assertThat(logged)
        .extracting(ILoggingEvent::getFormattedMessage)
        .containsExactly(
            "Inbox retention PT24H for consumer billing is shorter than the replay window PT72H"
                + " operators may replay; --allow-short-retention is given, so a message replayed more than PT24H"
                + " after it was applied will be applied twice",
            "Inbox retention PT24H for consumer billing cannot cover topic audit, which keeps"
                + " records forever (retention.ms=-1 or compacted); --allow-short-retention is given, so a record of"
                + " topic audit replayed more than PT24H after it was applied will be applied"
                + " twice",
            "Inbox retention PT24H for consumer billing is shorter than the PT168H topic orders may"
                + " keep a record; --allow-short-retention is given, so a record of topic orders replayed more than"
                + " PT24H after it was applied will be applied twice");
  }

  @Test
  void withOverrideAndNoGapNothingIsLogged() {
    assertThat(
            logged(
                InboxRetentionConfig.of("billing", DAY, DAY).withOverride(true),
                Map.of("orders", DAY)))
        .isEmpty();
  }

  private static AbstractThrowableAssert<?, ? extends Throwable> assertRefused(
      InboxRetentionConfig c, Map<String, Duration> topics) {
    return assertThatThrownBy(() -> InboxRetention.checkCoversReplay(c, topics))
        .isInstanceOf(ConfigurationException.class);
  }

  private static void assertAccepted(InboxRetentionConfig c, Map<String, Duration> topics) {
    assertThatCode(() -> InboxRetention.checkCoversReplay(c, topics)).doesNotThrowAnyException();
  }

  /** What {@link InboxRetention#checkCoversReplay} logs for {@code c} and {@code topics}. */
  private static List<ILoggingEvent> logged(InboxRetentionConfig c, Map<String, Duration> topics) {
    Logger logger = (Logger) LoggerFactory.getLogger(InboxRetention.class);
    ListAppender<ILoggingEvent> logged = new ListAppender<>();
    logged.start();
    logger.addAppender(logged);
    try {
      InboxRetention.checkCoversReplay(c, topics);
    } finally {
      logger.detachAppender(logged);
    }
    return logged.list;
  }
}

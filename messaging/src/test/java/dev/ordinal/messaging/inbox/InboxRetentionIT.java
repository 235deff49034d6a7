package dev.ordinal.messaging.inbox;

import static dev.ordinal.messaging.db.Tables.INBOX;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.ordinal.messaging.ConfigurationException;
import dev.ordinal.messaging.db.Migrations;
import dev.ordinal.testkit.OrdinalStackExtension;
import dev.ordinal.testkit.SettableClock;
import dev.ordinal.testkit.TestNamespace;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.sql.Connection;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.TopicConfig;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(OrdinalStackExtension.class)
class InboxRetentionIT {
  static final Instant NOW = Instant.parse("2026-03-02T12:00:00Z");
  static final Duration RETENTION = Duration.ofDays(7);
  static final Duration WINDOW = Duration.ofDays(3);
  static final Duration TIMEOUT = Duration.ofSeconds(10);

  static DSLContext dsl;
  static Admin admin;

  @BeforeAll
  static void schema(TestNamespace ns) {
    Migrations.applyInbox(ns.dataSource(), ns.schema());
    dsl = DSL.using(ns.dataSource(), SQLDialect.POSTGRES);
    admin =
        Admin.create(
            Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, ns.stack().kafkaBootstrap()));
  }

  @AfterAll
  static void closeAdmin() {
    admin.close();
  }

  @BeforeEach
  void emptyTheInbox() {
    dsl.deleteFrom(INBOX).execute();
  }

  @Test
  void deletes2500OldRowsOfOneConsumerIn3BatchesAndKeepsItsTenRecentAndAllHundredOfAnother() {
    Instant cutoff = NOW.minus(RETENTION);
    insert("a", "a-old", 2500, cutoff.minusMillis(1));
    insert("a", "a-at-cutoff", 1, cutoff);
    insert("a", "a-recent", 9, cutoff.plus(Duration.ofHours(1)));
    insert("b", "b-old", 100, cutoff.minus(Duration.ofDays(30)));
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    SettableClock clock = new SettableClock(NOW);
    InboxRetention retention =
        new InboxRetention(InboxRetentionConfig.of("a", RETENTION, WINDOW), dsl, registry, clock);

    assertThat(retention.runOnce()).isEqualTo(2500);

    assertThat(retention.batches()).isEqualTo(3); // 1,000, 1,000, then 500
    assertThat(dsl.fetchCount(INBOX, INBOX.CONSUMER.eq("a"))).isEqualTo(10);
    assertThat(dsl.fetchCount(INBOX, INBOX.MESSAGE_ID.startsWith("a-old"))).isZero();
    assertThat(dsl.fetchCount(INBOX, INBOX.CONSUMER.eq("b"))).isEqualTo(100);
    assertThat(deletedMetric(registry, "a")).isEqualTo(2500.0);
    assertThat(successfulRuns(registry)).isEqualTo(1);

    // nothing more is old at the same instant: one statement that deletes nothing
    assertThat(retention.runOnce()).isZero();
    assertThat(retention.batches()).isEqualTo(4);

    // a millisecond later the row at the cutoff is past retention, the recent ones are not
    clock.advance(Duration.ofMillis(1));
    assertThat(retention.runOnce()).isEqualTo(1);
    assertThat(dsl.fetchCount(INBOX, INBOX.MESSAGE_ID.startsWith("a-recent"))).isEqualTo(9);
    assertThat(dsl.fetchCount(INBOX, INBOX.CONSUMER.eq("b"))).isEqualTo(100);
    assertThat(retention.deleted()).isEqualTo(2501);
  }

  @Test
  void rowsLockedByAnotherTransactionAreSkippedNotWaitedFor(TestNamespace ns) throws Exception {
    Instant cutoff = NOW.minus(RETENTION);
    insert("a", "a-old", 2500, cutoff.minusMillis(1));
    InboxRetention retention = atNow(InboxRetentionConfig.of("a", RETENTION, WINDOW));
    try (Connection c = ns.dataSource().getConnection()) {
      c.setAutoCommit(false);
      // the five oldest, which the first batch would take: held as another replica's job would
      int locked =
          DSL.using(c, SQLDialect.POSTGRES)
              .selectFrom(INBOX)
              .orderBy(INBOX.PROCESSED_AT)
              .limit(5)
              .forUpdate()
              .fetch()
              .size();
      assertThat(locked).isEqualTo(5);

      int deleted =
          CompletableFuture.supplyAsync(retention::runOnce)
              .get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);

      assertThat(deleted).isEqualTo(2495);
      assertThat(retention.batches()).isEqualTo(3); // 1,000, 1,000, then 495
      c.rollback();
    }
    assertThat(retention.runOnce()).isEqualTo(5);
    assertThat(dsl.fetchCount(INBOX)).isZero();
  }

  @Test
  void aStartedJobDeletesOnItsOwnThreadAndStopsOnClose() {
    insert("a", "a-old", 40, NOW.minus(RETENTION).minusSeconds(1));
    insert("a", "a-new", 3, NOW.minus(RETENTION).plusSeconds(1));
    InboxRetention retention =
        atNow(
            InboxRetentionConfig.of("a", RETENTION, WINDOW)
                .withBatchSize(7)
                .withInterval(Duration.ofMillis(20)));
    try (retention) {
      retention.start(Map.of("orders", RETENTION));
      await().atMost(TIMEOUT).until(() -> retention.deleted() == 40);
      assertThat(dsl.fetchCount(INBOX)).isEqualTo(3);
      assertThatThrownBy(retention::start).isInstanceOf(IllegalStateException.class);
    }
    await().atMost(Duration.ofSeconds(5)).until(() -> aliveThreadsNamed("inbox-retention-a") == 0);
  }

  @Test
  void aRefusedStartSchedulesNothingAndDeletesNothing() {
    insert("a", "a-old", 10, NOW.minus(Duration.ofDays(30)));
    InboxRetention retention = atNow(InboxRetentionConfig.of("a", Duration.ofDays(1), WINDOW));
    try (retention) {
      assertThatThrownBy(retention::start)
          .isInstanceOf(ConfigurationException.class)
          .hasMessage(
              "Inbox retention PT24H for consumer a is shorter than the replay window PT72H"
                  + " operators may replay; raise the retention or pass --allow-short-retention");
      assertThat(aliveThreadsNamed("inbox-retention-a")).isZero();
      assertThat(retention.batches()).isZero();
    }
    assertThat(dsl.fetchCount(INBOX)).isEqualTo(10);
  }

  /** A topic that keeps records 7 days, in segments of an hour: a record may live 169 hours. */
  private static NewTopic weekInHourSegments(String name, int partitions) {
    return new NewTopic(name, partitions, (short) 1)
        .configs(
            Map.of(
                TopicConfig.RETENTION_MS_CONFIG, Long.toString(Duration.ofDays(7).toMillis()),
                TopicConfig.SEGMENT_MS_CONFIG, Long.toString(Duration.ofHours(1).toMillis())));
  }

  @Test
  void readsHowLongEachRealTopicMayKeepARecordRetentionPlusSegment(TestNamespace ns)
      throws Exception {
    String week = ns.topic("week");
    String forever = ns.topic("forever");
    String compacted = ns.topic("compacted");
    String defaults = ns.topic("defaults");
    createTopics(
        weekInHourSegments(week, 1),
        new NewTopic(forever, 1, (short) 1).configs(Map.of(TopicConfig.RETENTION_MS_CONFIG, "-1")),
        new NewTopic(compacted, 1, (short) 1)
            .configs(
                Map.of(
                    TopicConfig.CLEANUP_POLICY_CONFIG,
                    TopicConfig.CLEANUP_POLICY_COMPACT,
                    TopicConfig.RETENTION_MS_CONFIG,
                    "3600000")),
        new NewTopic(defaults, 1, (short) 1));

    Map<String, Duration> kept =
        InboxRetention.topicRetentions(admin, List.of(week, forever, compacted, defaults), TIMEOUT);

    assertThat(kept)
        .containsExactlyInAnyOrderEntriesOf(
            Map.of(
                week,
                Duration.ofHours(169),
                forever,
                InboxRetention.FOREVER,
                compacted,
                InboxRetention.FOREVER,
                // the broker's defaults: log.retention.hours=168 and log.roll.hours=168
                defaults,
                Duration.ofHours(336)));
  }

  /**
   * {@code config} is refused with {@code message} against the topics' retentions {@code kept}, and
   * accepted with the override.
   */
  private static void assertRefusedUnlessOverridden(
      InboxRetentionConfig config, Map<String, Duration> kept, String message) {
    assertThatThrownBy(() -> InboxRetention.checkCoversReplay(config, kept))
        .isInstanceOf(ConfigurationException.class)
        .hasMessage(message);
    assertThatCode(() -> InboxRetention.checkCoversReplay(config.withOverride(true), kept))
        .doesNotThrowAnyException();
  }

  @Test
  void anInboxRetentionShorterThanARealTopicKeepsARecordIsRefusedAndALongerOneAccepted(
      TestNamespace ns) throws Exception {
    String orders = ns.topic("orders");
    createTopics(weekInHourSegments(orders, 3));
    Map<String, Duration> kept = InboxRetention.topicRetentions(admin, List.of(orders), TIMEOUT);

    // equal to retention.ms is not enough: a record lives until its whole segment is that old
    InboxRetentionConfig equal = InboxRetentionConfig.of("a", Duration.ofDays(7), WINDOW);
    assertRefusedUnlessOverridden(
        equal,
        kept,
        "Inbox retention PT168H for consumer a is shorter than the PT169H topic "
            + orders
            + " may keep a record, which could be replayed after its inbox row is deleted;"
            + " raise the retention or pass --allow-short-retention");
    try (InboxRetention refused = atNow(equal)) {
      assertThatThrownBy(() -> refused.start(kept)).isInstanceOf(ConfigurationException.class);
    }

    InboxRetentionConfig longer = InboxRetentionConfig.of("a", Duration.ofHours(169), WINDOW);
    assertThatCode(() -> InboxRetention.checkCoversReplay(longer, kept)).doesNotThrowAnyException();
    insert("a", "a-old", 12, NOW.minus(Duration.ofHours(169)).minusMillis(1));
    insert("a", "a-new", 2, NOW.minus(Duration.ofHours(168)));
    try (InboxRetention accepted = atNow(longer.withInterval(Duration.ofMillis(20)))) {
      accepted.start(kept);
      await().atMost(TIMEOUT).until(() -> accepted.deleted() == 12);
    }
    assertThat(dsl.fetchCount(INBOX, INBOX.CONSUMER.eq("a"))).isEqualTo(2);
  }

  @Test
  void aRealTopicWithInfiniteRetentionIsRefusedUnlessOverridden(TestNamespace ns) throws Exception {
    String audit = ns.topic("audit");
    createTopics(
        new NewTopic(audit, 1, (short) 1).configs(Map.of(TopicConfig.RETENTION_MS_CONFIG, "-1")));
    Map<String, Duration> kept = InboxRetention.topicRetentions(admin, List.of(audit), TIMEOUT);

    assertRefusedUnlessOverridden(
        InboxRetentionConfig.of("a", Duration.ofDays(3650), WINDOW),
        kept,
        "Inbox retention PT87600H for consumer a cannot cover topic "
            + audit
            + ", which keeps records forever (retention.ms=-1 or compacted), so a replay of it"
            + " could apply a message twice; give the topic a finite retention.ms or pass"
            + " --allow-short-retention");
  }

  @Test
  void aMissingTopicIsAConfigurationErrorNamingIt(TestNamespace ns) {
    String missing = ns.topic("missing");
    assertThatThrownBy(() -> InboxRetention.topicRetentions(admin, List.of(missing), TIMEOUT))
        .isInstanceOf(ConfigurationException.class)
        .hasMessageStartingWith("Cannot read the retention of topic " + missing + " from Kafka")
        .hasMessageEndingWith(
            "check that the topic exists and that this client may describe its configs");
  }

  /**
   * Creates the topics and waits until the broker describes their configs: the controller accepts a
   * topic before the broker's metadata has it, and a describe in between answers "unknown topic".
   */
  private static void createTopics(NewTopic... topics) throws Exception {
    admin.createTopics(List.of(topics)).all().get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    List<ConfigResource> resources =
        Arrays.stream(topics)
            .map(t -> new ConfigResource(ConfigResource.Type.TOPIC, t.name()))
            .toList();
    await()
        .atMost(TIMEOUT)
        .ignoreExceptions()
        .until(
            () ->
                admin
                        .describeConfigs(resources)
                        .all()
                        .get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)
                        .size()
                    == topics.length);
  }

  private static long aliveThreadsNamed(String name) {
    return Thread.getAllStackTraces().keySet().stream()
        .filter(t -> t.getName().equals(name) && t.isAlive())
        .count();
  }

  /** A retention job as {@code config} says, on this schema, its clock stopped at {@link #NOW}. */
  private static InboxRetention atNow(InboxRetentionConfig config) {
    return new InboxRetention(
        config, dsl, new SimpleMeterRegistry(), Clock.fixed(NOW, ZoneOffset.UTC));
  }

  private static long successfulRuns(MeterRegistry registry) {
    return registry.get("ordinal.inbox.retention.runs").tag("outcome", "success").timer().count();
  }

  private static double deletedMetric(MeterRegistry registry, String consumer) {
    return registry
        .get("ordinal.inbox.retention.deleted")
        .tag("consumer", consumer)
        .counter()
        .count();
  }

  /**
   * {@code rows} inbox rows of {@code consumer}, the i-th (from 0) processed {@code i} milliseconds
   * before {@code processedAt}, so none is later than the time given.
   */
  private static void insert(String consumer, String prefix, int rows, Instant processedAt) {
    dsl.insertInto(
            INBOX,
            INBOX.MESSAGE_ID,
            INBOX.CONSUMER,
            INBOX.TOPIC,
            INBOX.PARTITION_NO,
            INBOX.RECORD_OFFSET,
            INBOX.PROCESSED_AT)
        .valuesOfRows(
            IntStream.range(0, rows)
                .mapToObj(
                    i ->
                        DSL.row(
                            prefix + "-" + i,
                            consumer,
                            "orders",
                            0,
                            (long) i,
                            OffsetDateTime.ofInstant(processedAt.minusMillis(i), ZoneOffset.UTC)))
                .toList())
        .execute();
  }
}

package dev.ordinal.ops.dlq;

import static dev.ordinal.messaging.db.Tables.INBOX;
import static dev.ordinal.ops.db.Tables.DLQ_REDRIVE_LOG;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.entry;
import static org.awaitility.Awaitility.await;

import dev.ordinal.contracts.Channel;
import dev.ordinal.contracts.EventCodec;
import dev.ordinal.contracts.EventType;
import dev.ordinal.contracts.OrderPlacedV1;
import dev.ordinal.messaging.ConfigurationException;
import dev.ordinal.messaging.RefusedException;
import dev.ordinal.messaging.db.Migrations;
import dev.ordinal.messaging.inbox.InboxConsumer;
import dev.ordinal.messaging.inbox.InboxConsumerConfig;
import dev.ordinal.messaging.inbox.MessageHandler;
import dev.ordinal.messaging.inbox.PoisonMessageException;
import dev.ordinal.messaging.kafka.MessageHeaders;
import dev.ordinal.messaging.kafka.Topics;
import dev.ordinal.ops.replay.ReplayLog;
import dev.ordinal.testkit.OrdinalStackExtension;
import dev.ordinal.testkit.TestKafka;
import dev.ordinal.testkit.TestNamespace;
import dev.ordinal.testkit.TopicReads;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.Record;
import org.jooq.SQLDialect;
import org.jooq.Table;
import org.jooq.impl.DSL;
import org.jooq.impl.SQLDataType;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * Poison dead-lettered by an inbox consumer, then "fixed" (a handler that now accepts it) and
 * re-driven: each fixed record is applied exactly once; a second re-drive of the same records is
 * all duplicates; both re-drives are recorded.
 */
@ExtendWith(OrdinalStackExtension.class)
class DeadLettersIT {
  static final Table<Record> EFFECTS = DSL.table(DSL.name("effects"));
  static final Field<String> MESSAGE = DSL.field(DSL.name("message_id"), SQLDataType.VARCHAR(128));
  static final String CONSUMER = "dlq-test";
  static final String PLACED = EventType.ORDER_PLACED.wireName();

  static DSLContext dsl;

  @BeforeAll
  static void schema(TestNamespace ns) {
    Migrations.applyInbox(ns.dataSource(), ns.schema());
    ReplayLog.migrate(ns.dataSource(), ns.schema());
    dsl = DSL.using(ns.dataSource(), SQLDialect.POSTGRES);
    dsl.createTable(EFFECTS).column(MESSAGE).primaryKey(MESSAGE).execute();
  }

  @Test
  void fixedDeadLettersAreAppliedOnceAndASecondRedriveIsAllDuplicates(TestNamespace ns)
      throws Exception {
    String topic = ns.topic("order");
    String dlq = InboxConsumerConfig.deadLetterTopic(topic);
    String group = ns.group("orders");
    Topics.ensure(ns.stack().kafkaBootstrap(), topic, 2);
    List<String> marked = List.of("m-1", "m-4", "m-7");
    try (KafkaProducer<String, String> producer = producer(ns)) {
      for (int i = 0; i < 10; i++) {
        String id = "m-" + i;
        OrderPlacedV1 placed = placed(i, marked.contains(id) ? "XXX" : "EUR");
        ProducerRecord<String, String> r =
            new ProducerRecord<>(
                topic, i % 2, placed.orderId().toString(), EventCodec.toJson(placed));
        r.headers().add(MessageHeaders.MESSAGE_ID, MessageHeaders.encode(id));
        r.headers().add(MessageHeaders.EVENT_TYPE, MessageHeaders.encode(PLACED));
        r.headers().add(MessageHeaders.TRACEPARENT, MessageHeaders.encode("00-trace-" + i));
        producer.send(r);
      }
      // no message id: dead-lettered, and never re-driven
      OrderPlacedV1 withoutId = placed(10, "EUR");
      ProducerRecord<String, String> noId =
          new ProducerRecord<>(
              topic, 0, withoutId.orderId().toString(), EventCodec.toJson(withoutId));
      noId.headers().add(MessageHeaders.EVENT_TYPE, MessageHeaders.encode(PLACED));
      producer.send(noId);
      producer.flush();
    }
    MessageHandler rejectsXxx =
        (tx, m) -> {
          if (EventCodec.fromJson(m.payload(), OrderPlacedV1.class).currency().equals("XXX")) {
            throw new PoisonMessageException("unknown currency XXX in " + m.messageId());
          }
          tx.insertInto(EFFECTS).set(MESSAGE, m.messageId()).execute();
        };
    try (InboxConsumer before = consumer(ns, group, topic, rejectsXxx)) {
      await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> before.applied() == 7 && before.deadLettered() == 4);
    }

    DeadLetters deadLetters =
        new DeadLetters(
            ns.stack().kafkaBootstrap(), dsl, Clock.systemUTC(), Duration.ofSeconds(30));
    List<DeadLetter> all = deadLetters.read(dlq, DeadLetterFilter.ALL);
    assertThat(all).hasSize(4);
    List<DeadLetter> currency =
        deadLetters.read(dlq, DeadLetterFilter.parse(List.of("error~=Unknown Currency")));
    assertThat(currency)
        .extracting(d -> d.messageId().orElseThrow())
        .containsExactlyInAnyOrderElementsOf(marked);
    DeadLetter m4 = deadLetters.read(dlq, DeadLetterFilter.parse(List.of("message-id=m-4"))).get(0);
    assertThat(m4.originalTopic()).contains(topic);
    assertThat(m4.originalPartition()).hasValue(0);
    assertThat(m4.originalOffset()).hasValue(2);
    assertThat(m4.consumer()).contains(CONSUMER);
    assertThat(m4.error()).contains("unknown currency XXX in m-4");
    assertThat(m4.deadLetteredAt()).isPresent();
    assertThat(m4.payload()).isEqualTo(EventCodec.toJson(placed(4, "XXX")));
    assertThat(m4.key()).isEqualTo(placed(4, "XXX").orderId().toString());
    assertThat(deadLetters.read(dlq, DeadLetterFilter.parse(List.of("offset=" + m4.offset()))))
        .containsExactly(m4);
    assertThat(deadLetters.redriveCounts(dlq)).isEmpty();

    // a dry run: the same plan, nothing produced, nothing recorded
    RedriveResult dry = deadLetters.redrive(dlq, DeadLetterFilter.ALL, "erin", 3, false);
    assertThat(dry.executed()).isFalse();
    assertThat(dry.redriven())
        .extracting(r -> r.source().messageId().orElseThrow())
        .containsExactlyInAnyOrderElementsOf(marked);
    assertThat(dry.redriven()).allMatch(r -> r.offset() == -1 && r.count() == 1);
    assertThat(dry.byTopic()).containsExactly(entry(topic, 3L));
    assertThat(dry.skipped()).hasSize(1);
    assertThat(records(ns, topic)).isEqualTo(11);
    assertThat(records(ns, dlq)).isEqualTo(4);
    assertThat(dsl.fetchCount(DLQ_REDRIVE_LOG)).isZero();

    MessageHandler acceptsAll =
        (tx, m) -> tx.insertInto(EFFECTS).set(MESSAGE, m.messageId()).execute();
    try (InboxConsumer after = consumer(ns, group, topic, acceptsAll)) {
      RedriveResult first = deadLetters.redrive(dlq, DeadLetterFilter.ALL, "erin");
      assertThat(first.redriven())
          .extracting(r -> r.source().messageId().orElseThrow())
          .containsExactlyInAnyOrderElementsOf(marked);
      assertThat(first.redriven()).allMatch(r -> r.earlierRedrives() == 0);
      assertThat(first.redriven()).allMatch(r -> r.topic().equals(topic));
      assertThat(first.skipped()).hasSize(1);
      assertThat(first.skipped().get(0).reason()).startsWith("no message-id header");
      await().atMost(Duration.ofSeconds(30)).until(() -> after.applied() == 3);

      RedriveResult second =
          deadLetters.redrive(dlq, DeadLetterFilter.parse(List.of("consumer=" + CONSUMER)), "erin");
      assertThat(second.redriven()).hasSize(3).allMatch(r -> r.earlierRedrives() == 1);
      await().atMost(Duration.ofSeconds(30)).until(() -> after.duplicates() == 3);
      assertThat(after.applied()).as("nothing applied twice").isEqualTo(3);
      assertThat(after.deadLettered()).isZero();
    }
    assertThat(dsl.fetchCount(EFFECTS)).isEqualTo(10);
    for (String id : marked) {
      assertThat(dsl.fetchCount(EFFECTS, MESSAGE.eq(id))).as(id).isEqualTo(1);
      assertThat(dsl.fetchCount(INBOX, INBOX.MESSAGE_ID.eq(id).and(INBOX.CONSUMER.eq(CONSUMER))))
          .isEqualTo(1);
    }
    assertThat(dsl.fetchCount(DLQ_REDRIVE_LOG, DLQ_REDRIVE_LOG.DLQ_TOPIC.eq(dlq))).isEqualTo(6);
    assertThat(
            dsl.fetchCount(
                DLQ_REDRIVE_LOG,
                DLQ_REDRIVE_LOG
                    .MESSAGE_ID
                    .eq("m-4")
                    .and(DLQ_REDRIVE_LOG.TARGET_TOPIC.eq(topic))
                    .and(DLQ_REDRIVE_LOG.TARGET_PARTITION.eq(0))
                    .and(DLQ_REDRIVE_LOG.REDRIVEN_BY.eq("erin"))))
        .isEqualTo(2);
    assertThat(deadLetters.redriveCounts(dlq)).hasSize(3).containsValue(2);

    // what travelled: the original headers and message id, no dlq-* header
    List<ConsumerRecord<String, String>> again = readAll(ns, topic, 0);
    List<ConsumerRecord<String, String>> m4Copies =
        again.stream()
            .filter(r -> "m-4".equals(MessageHeaders.get(r.headers(), "message-id").orElse(null)))
            .toList();
    assertThat(m4Copies).hasSize(3);
    assertThat(m4Copies)
        .extracting(r -> MessageHeaders.get(r.headers(), DeadLetter.REDRIVE_COUNT).orElse("-"))
        .containsExactly("-", "1", "2");
    for (ConsumerRecord<String, String> r : m4Copies.subList(1, 3)) {
      assertThat(r.key()).isEqualTo(placed(4, "XXX").orderId().toString());
      assertThat(r.value()).isEqualTo(EventCodec.toJson(placed(4, "XXX")));
      assertThat(MessageHeaders.get(r.headers(), MessageHeaders.TRACEPARENT))
          .contains("00-trace-4");
      assertThat(r.headers().toArray()).noneMatch(h -> h.key().startsWith("dlq-"));
    }

    // the loop guard: each was re-driven twice, a limit of 2 refuses all three
    long sourceRecords = records(ns, topic);
    RedriveResult guarded = deadLetters.redrive(dlq, DeadLetterFilter.ALL, "erin", 2, true);
    assertThat(guarded.redriven()).isEmpty();
    assertThat(guarded.refused()).hasSize(3).allMatch(r -> r.redrives() == 2);
    assertThat(guarded.refused().get(0).reason())
        .isEqualTo(
            "re-driven 2 time(s) already, the limit: discard it (dlq discard), or raise"
                + " --max-redrives once the consumer is fixed.");
    assertThat(records(ns, topic)).isEqualTo(sourceRecords);
    assertThat(dsl.fetchCount(DLQ_REDRIVE_LOG)).isEqualTo(6);

    // discard: a dry run records nothing; then one row with action discard, skipped from then on
    DeadLetterFilter m7 = DeadLetterFilter.parse(List.of("message-id=m-7"));
    assertThat(deadLetters.discard(dlq, m7, "erin", false).discarded()).hasSize(1);
    assertThat(dsl.fetchCount(DLQ_REDRIVE_LOG)).isEqualTo(6);
    DiscardResult discarded = deadLetters.discard(dlq, m7, "erin", true);
    assertThat(discarded.discarded())
        .extracting(d -> d.messageId().orElseThrow())
        .containsExactly("m-7");
    assertThat(
            dsl.fetchCount(
                DLQ_REDRIVE_LOG,
                DLQ_REDRIVE_LOG
                    .ACTION
                    .eq("discard")
                    .and(DLQ_REDRIVE_LOG.MESSAGE_ID.eq("m-7"))
                    .and(DLQ_REDRIVE_LOG.TARGET_TOPIC.isNull())
                    .and(DLQ_REDRIVE_LOG.REDRIVEN_BY.eq("erin"))))
        .isEqualTo(1);
    assertThat(deadLetters.discard(dlq, m7, "erin", true))
        .isEqualTo(new DiscardResult(true, List.of(), 1));
    assertThat(dsl.fetchCount(DLQ_REDRIVE_LOG)).isEqualTo(7);
    DeadLetterList listed = deadLetters.list(dlq, DeadLetterFilter.ALL);
    assertThat(listed.letters())
        .hasSize(3)
        .noneMatch(d -> d.messageId().equals(Optional.of("m-7")));
    assertThat(listed.discarded()).isEqualTo(1);
    RedriveResult afterDiscard = deadLetters.redrive(dlq, DeadLetterFilter.ALL, "erin", 10, false);
    assertThat(afterDiscard.redriven())
        .extracting(r -> r.source().messageId().orElseThrow())
        .containsExactlyInAnyOrder("m-1", "m-4");
    assertThat(afterDiscard.skipped())
        .extracting(RedriveResult.Skipped::reason)
        .filteredOn(r -> r.startsWith("discarded"))
        .hasSize(1);
    assertThat(deadLetters.redriveCounts(dlq)).hasSize(3).containsValue(2);
  }

  /** How many records {@code topic} holds: two partitions, one for a dead-letter topic. */
  private static long records(TestNamespace ns, String topic) {
    return topic.endsWith(".dlq")
        ? readAll(ns, topic, 0).size()
        : readAll(ns, topic, 0).size() + readAll(ns, topic, 1).size();
  }

  /**
   * The loop guard through the real inbox: a consumer that still rejects the record dead-letters
   * each re-driven copy again, keeping its count header; at the limit the re-drive is refused.
   */
  @Test
  void aLetterTheConsumerKeepsRejectingIsRefusedAtTheLimit(TestNamespace ns) throws Exception {
    String topic = ns.topic("looping");
    String dlq = InboxConsumerConfig.deadLetterTopic(topic);
    Topics.ensure(ns.stack().kafkaBootstrap(), topic, 2);
    try (KafkaProducer<String, String> producer = producer(ns)) {
      OrderPlacedV1 placed = placed(100, "XXX");
      ProducerRecord<String, String> r =
          new ProducerRecord<>(topic, 0, placed.orderId().toString(), EventCodec.toJson(placed));
      r.headers().add(MessageHeaders.MESSAGE_ID, MessageHeaders.encode("loop-1"));
      r.headers().add(MessageHeaders.EVENT_TYPE, MessageHeaders.encode(PLACED));
      producer.send(r).get();
    }
    MessageHandler rejectsAll =
        (tx, m) -> {
          throw new PoisonMessageException("still unknown currency in " + m.messageId());
        };
    DeadLetters deadLetters =
        new DeadLetters(
            ns.stack().kafkaBootstrap(), dsl, Clock.systemUTC(), Duration.ofSeconds(30));
    try (InboxConsumer consumer = consumer(ns, ns.group("looping"), topic, rejectsAll)) {
      await().atMost(Duration.ofSeconds(30)).until(() -> consumer.deadLettered() == 1);
      for (int n = 1; n <= 2; n++) {
        DeadLetterFilter latest = DeadLetterFilter.parse(List.of("offset=" + (n - 1)));
        RedriveResult redrive = deadLetters.redrive(dlq, latest, "erin", 2, true);
        assertThat(redrive.redriven())
            .singleElement()
            .satisfies(c -> assertThat(c.count()).isEqualTo(c.earlierRedrives() + 1));
        int deadLettered = n + 1;
        await().atMost(Duration.ofSeconds(30)).until(() -> consumer.deadLettered() == deadLettered);
      }
    }
    List<DeadLetter> letters = deadLetters.read(dlq, DeadLetterFilter.ALL);
    assertThat(letters).extracting(DeadLetter::redriveCount).containsExactly(0, 1, 2);
    RedriveResult refused =
        deadLetters.redrive(dlq, DeadLetterFilter.parse(List.of("offset=2")), "erin", 2, true);
    assertThat(refused.redriven()).isEmpty();
    assertThat(refused.refused())
        .singleElement()
        .satisfies(r -> assertThat(r.redrives()).isEqualTo(2));
    assertThat(records(ns, topic)).isEqualTo(3);
    assertThat(dsl.fetchCount(DLQ_REDRIVE_LOG, DLQ_REDRIVE_LOG.DLQ_TOPIC.eq(dlq))).isEqualTo(2);
    assertThat(letters).allMatch(d -> d.error().orElseThrow().contains("still unknown currency"));
  }

  /**
   * 12 letters, a clock that moves one second each time it is read: a progress line each time 5 s
   * passed since the last one (5, 10) and one when all are acknowledged (12); none on a dry run.
   */
  @Test
  void progressIsToldWhenTheIntervalPassedAndAtTheEnd(TestNamespace ns) throws Exception {
    String topic = ns.topic("progress");
    String dlq = InboxConsumerConfig.deadLetterTopic(topic);
    Topics.ensure(ns.stack().kafkaBootstrap(), topic, 1);
    Topics.ensure(ns.stack().kafkaBootstrap(), dlq, 1);
    try (KafkaProducer<String, String> producer = producer(ns)) {
      for (int i = 0; i < 12; i++) {
        ProducerRecord<String, String> r = new ProducerRecord<>(dlq, "k" + i, "{}");
        r.headers().add(MessageHeaders.MESSAGE_ID, MessageHeaders.encode("p-" + i));
        r.headers().add(MessageHeaders.DLQ_TOPIC, MessageHeaders.encode(topic));
        r.headers().add(MessageHeaders.DLQ_PARTITION, MessageHeaders.encode("0"));
        producer.send(r);
      }
      producer.flush();
    }
    Instant start = Instant.parse("2026-12-01T10:00:00Z");
    AtomicInteger reads = new AtomicInteger();
    Clock ticking =
        new Clock() {
          @Override
          public Instant instant() {
            return start.plusSeconds(reads.getAndIncrement());
          }

          @Override
          public ZoneId getZone() {
            return ZoneOffset.UTC;
          }

          @Override
          public Clock withZone(ZoneId zone) {
            throw new UnsupportedOperationException();
          }
        };
    // a schema of its own: the other tests count every row of their dlq_redrive_log
    PGSimpleDataSource own = new PGSimpleDataSource();
    own.setUrl(ns.stack().jdbcUrl() + "?currentSchema=" + ns.schema("progress"));
    own.setUser(ns.stack().dbUser());
    own.setPassword(ns.stack().dbPassword());
    dsl.createSchemaIfNotExists(ns.schema("progress")).execute();
    ReplayLog.migrate(own, ns.schema("progress"));
    DeadLetters deadLetters =
        new DeadLetters(
            ns.stack().kafkaBootstrap(),
            DSL.using(own, SQLDialect.POSTGRES),
            ticking,
            Duration.ofSeconds(30));
    List<String> lines = new ArrayList<>();

    RedriveResult dry =
        deadLetters.redrive(dlq, DeadLetterFilter.ALL, "erin", 3, false, lines::add);
    assertThat(dry.redriven()).hasSize(12);
    assertThat(lines).isEmpty();

    RedriveResult done =
        deadLetters.redrive(dlq, DeadLetterFilter.ALL, "erin", 3, true, lines::add);
    assertThat(done.redriven()).hasSize(12);
    assertThat(lines)
        .containsExactly(
            "redriven 5 of 12 dead letters of " + dlq,
            "redriven 10 of 12 dead letters of " + dlq,
            "redriven 12 of 12 dead letters of " + dlq);
    assertThat(readAll(ns, topic, 0)).hasSize(12);
    assertThat(DSL.using(own, SQLDialect.POSTGRES).fetchCount(DLQ_REDRIVE_LOG)).isEqualTo(12);
  }

  @Test
  void badNamesAndFiltersAreRefusedWithASentence(TestNamespace ns) {
    DeadLetters deadLetters =
        new DeadLetters(
            ns.stack().kafkaBootstrap(), dsl, Clock.systemUTC(), Duration.ofSeconds(10));
    assertThatThrownBy(() -> deadLetters.read(ns.topic("order"), DeadLetterFilter.ALL))
        .isInstanceOf(ConfigurationException.class)
        .hasMessage(
            "'"
                + ns.topic("order")
                + "' is not a dead-letter topic: name one as <topic>.dlq (or Spring Kafka's"
                + " <topic>.DLT or <topic>-dlt).");
    assertThatThrownBy(() -> deadLetters.read(ns.topic("none.dlq"), DeadLetterFilter.ALL))
        .isInstanceOf(RefusedException.class)
        .hasMessage("Topic " + ns.topic("none.dlq") + " does not exist; check its name.");
    assertThatThrownBy(() -> DeadLetterFilter.parse(List.of("colour=red")))
        .isInstanceOf(ConfigurationException.class)
        .hasMessageContaining("names no known field; use one of message-id, error");
    assertThatThrownBy(() -> DeadLetterFilter.parse(List.of("offset=seven")))
        .isInstanceOf(ConfigurationException.class)
        .hasMessage("offset=seven is not a number; offset takes one");
  }

  private static List<ConsumerRecord<String, String>> readAll(
      TestNamespace ns, String topic, int partition) {
    return TopicReads.readToEnd(
        ns.stack().kafkaBootstrap(),
        List.of(new TopicPartition(topic, partition)),
        Duration.ofSeconds(10));
  }

  private static KafkaProducer<String, String> producer(TestNamespace ns) {
    return TestKafka.producer(ns.stack().kafkaBootstrap());
  }

  private static InboxConsumer consumer(
      TestNamespace ns, String group, String topic, MessageHandler handler) {
    return new InboxConsumer(
            InboxConsumerConfig.of(CONSUMER, group, List.of(topic), ns.stack().kafkaBootstrap()),
            dsl,
            handler,
            new SimpleMeterRegistry(),
            Clock.systemUTC())
        .start();
  }

  /** The {@code OrderPlaced} of order {@code n} in {@code currency}, as order-service writes it. */
  static OrderPlacedV1 placed(int n, String currency) {
    return new OrderPlacedV1(
        UUID.nameUUIDFromBytes(("order-" + n).getBytes(StandardCharsets.UTF_8)),
        "c",
        currency,
        Channel.INTERACTIVE,
        null,
        new BigDecimal("1.00"),
        List.of(),
        null);
  }
}

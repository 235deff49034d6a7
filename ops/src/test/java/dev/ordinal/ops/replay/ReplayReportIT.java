package dev.ordinal.ops.replay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ordinal.messaging.db.Migrations;
import dev.ordinal.messaging.inbox.InboxConsumer;
import dev.ordinal.messaging.inbox.InboxConsumerConfig;
import dev.ordinal.messaging.inbox.MessageHandler;
import dev.ordinal.messaging.inbox.PoisonMessageException;
import dev.ordinal.messaging.kafka.MessageHeaders;
import dev.ordinal.messaging.kafka.Topics;
import dev.ordinal.testkit.OrdinalStackExtension;
import dev.ordinal.testkit.TestKafka;
import dev.ordinal.testkit.TestNamespace;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.Record;
import org.jooq.SQLDialect;
import org.jooq.Table;
import org.jooq.impl.DSL;
import org.jooq.impl.SQLDataType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The report tells records that changed something from duplicates: 10 records, 3 of them skipped as
 * poison by a consumer that could not handle them; replayed to the start after a fix, the report
 * says 10 redelivered, 3 new effects, 7 duplicates, as the consumer counted.
 */
@ExtendWith(OrdinalStackExtension.class)
class ReplayReportIT {
  static final Table<Record> EFFECTS = DSL.table(DSL.name("effects"));
  static final Field<String> MESSAGE = DSL.field(DSL.name("message_id"), SQLDataType.VARCHAR(128));
  static final Duration TIMEOUT = Duration.ofSeconds(10);

  @Test
  void aReplayAfterAFixCountsTheSkippedRecordsAsNewEffectsAndTheRestAsDuplicates(TestNamespace ns)
      throws Exception {
    Migrations.applyInbox(ns.dataSource(), ns.schema());
    ReplayLog.migrate(ns.dataSource(), ns.schema());
    DSLContext dsl = DSL.using(ns.dataSource(), SQLDialect.POSTGRES);
    dsl.createTable(EFFECTS).column(MESSAGE).primaryKey(MESSAGE).execute();
    String topic = ns.topic("report");
    String group = ns.group("report");
    Topics.ensure(ns.stack().kafkaBootstrap(), topic, 2);
    try (KafkaProducer<String, String> producer = TestKafka.producer(ns.stack().kafkaBootstrap())) {
      for (int i = 0; i < 10; i++) {
        ProducerRecord<String, String> r =
            new ProducerRecord<>(
                topic, i % 2, "k" + i, i % 3 == 1 ? "{\"v\":\"new-kind\"}" : "{\"v\":\"ok\"}");
        r.headers().add(MessageHeaders.MESSAGE_ID, MessageHeaders.encode("r-" + i));
        r.headers().add(MessageHeaders.EVENT_TYPE, MessageHeaders.encode("Something"));
        producer.send(r);
      }
      producer.flush();
    }
    MessageHandler old =
        (tx, m) -> {
          if (m.payload().contains("new-kind")) {
            throw new PoisonMessageException("cannot handle " + m.messageId() + " yet");
          }
          tx.insertInto(EFFECTS).set(MESSAGE, m.messageId()).execute();
        };
    MessageHandler fixed = (tx, m) -> tx.insertInto(EFFECTS).set(MESSAGE, m.messageId()).execute();

    try (Admin admin =
        Admin.create(
            Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, ns.stack().kafkaBootstrap()))) {
      ReplayPlanner planner = new ReplayPlanner(admin, Clock.systemUTC(), TIMEOUT);
      try (InboxConsumer first = consumer(ns, dsl, group, topic, old)) {
        await().atMost(Duration.ofSeconds(30)).until(() -> caughtUp(planner, group, topic, 10));
        assertThat(first.applied()).isEqualTo(7);
        assertThat(first.deadLettered()).isEqualTo(3);
      }
      ReplayPlan plan =
          planner.plan(ReplayRequest.allPartitions(group, topic, new ReplayTarget.ToEarliest()));
      ExecutedReplay replay =
          new ReplayExecutor(admin, new ReplayLog(dsl), Clock.systemUTC(), TIMEOUT)
              .execute(plan, "ops", "report");

      ReplayReport before =
          ReplayReport.of(replay, "report", dsl, planner.committedOffsets(group, topic));
      assertThat(before.caughtUp()).isFalse();
      assertThat(before.read()).isZero();
      assertThat(before.redelivered()).isEqualTo(10);

      try (InboxConsumer second = consumer(ns, dsl, group, topic, fixed)) {
        await().atMost(Duration.ofSeconds(30)).until(() -> caughtUp(planner, group, topic, 10));
        assertThat(second.applied()).isEqualTo(3);
        assertThat(second.duplicates()).isEqualTo(7);
      }
      ReplayReport after =
          ReplayReport.of(replay, "report", dsl, planner.committedOffsets(group, topic));
      assertThat(after.caughtUp()).isTrue();
      assertThat(after.read()).isEqualTo(10);
      assertThat(after.redelivered()).isEqualTo(10);
      assertThat(after.newEffects()).isEqualTo(3);
      assertThat(after.duplicates()).isEqualTo(7);
      assertThat(dsl.fetchCount(EFFECTS)).isEqualTo(10);
      // another consumer's rows are not this consumer's effects
      assertThat(ReplayReport.of(replay, "someone-else", dsl, Map.of()).newEffects()).isZero();
    }
  }

  private static boolean caughtUp(ReplayPlanner planner, String group, String topic, long total) {
    return planner.committedOffsets(group, topic).values().stream().mapToLong(Long::longValue).sum()
        == total;
  }

  private static InboxConsumer consumer(
      TestNamespace ns, DSLContext dsl, String group, String topic, MessageHandler handler) {
    return new InboxConsumer(
            InboxConsumerConfig.of("report", group, List.of(topic), ns.stack().kafkaBootstrap())
                .withDeadLetter(false),
            dsl,
            handler,
            new SimpleMeterRegistry(),
            Clock.systemUTC())
        .start();
  }
}

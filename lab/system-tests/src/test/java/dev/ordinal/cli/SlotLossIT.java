package dev.ordinal.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ordinal.billing.BillingApp;
import dev.ordinal.lab.demo.LocalSystem;
import dev.ordinal.messaging.db.DatabaseSettings;
import dev.ordinal.messaging.kafka.MessageHeaders;
import dev.ordinal.messaging.outbox.OutboxRetention;
import dev.ordinal.messaging.outbox.OutboxRetentionConfig;
import dev.ordinal.messaging.outbox.OutboxRetentionMode;
import dev.ordinal.order.ApiAuth;
import dev.ordinal.order.NewOrder;
import dev.ordinal.order.OrderServiceApp;
import dev.ordinal.order.OrderServiceSettings;
import dev.ordinal.relay.RelayApp;
import dev.ordinal.relay.RelayConfig;
import dev.ordinal.relay.RelaySettings;
import dev.ordinal.runtime.ManagementSettings;
import dev.ordinal.testkit.OrdinalStackExtension;
import dev.ordinal.testkit.TestKafka;
import dev.ordinal.testkit.TestNamespace;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.math.BigDecimal;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import picocli.CommandLine;

/**
 * A relay whose slot was dropped while it was stopped refuses to stream past the events committed
 * meanwhile (it would skip them without an error), says so in one sentence with exit status 1, and
 * the two commands it names recover: a slot from now, then the outbox rows since published again
 * under their original ids — billing applies the new ones and skips the rest as duplicates.
 */
@ExtendWith(OrdinalStackExtension.class)
class SlotLossIT {
  static final Pattern FROM = Pattern.compile("--from (\\S+) --execute");

  @Test
  void aLostSlotIsRefusedAndTheRowsSinceArePublishedAgainUnderTheirOwnIds(TestNamespace ns)
      throws Exception {
    DatabaseSettings db =
        new DatabaseSettings(ns.stack().jdbcUrl(), ns.stack().dbUser(), ns.stack().dbPassword());
    String bootstrap = ns.stack().kafkaBootstrap();
    String orderSchema = ns.schema("orders");
    String prefix = ns.topicPrefix();
    String topic = prefix + ".order";
    Map<String, String> env = ns.serverEnvironment();
    RelaySettings relaySettings = relaySettings(db, bootstrap, orderSchema, prefix);
    String slot = RelayConfig.defaultName(orderSchema);
    DSLContext admin = DSL.using(ns.dataSource(), SQLDialect.POSTGRES);

    try (LocalSystem system =
        LocalSystem.forTests(db, bootstrap, orderSchema)
            .billing(
                b -> b.schema(ns.schema("billing")).topicPrefix(prefix).group(ns.group("billing")))
            .withoutRelay()
            .start()) {
      OrderServiceApp orders = system.orders();
      BillingApp billing = system.billing();
      // 20 orders relayed and applied; the relay stores its position beside the outbox
      try (RelayApp relay = RelayApp.start(relaySettings)) {
        relay.relays().get(0).awaitStreaming(Duration.ofSeconds(60));
        place(orders, 20);
        await().atMost(Duration.ofSeconds(60)).until(() -> billing.applied() == 20);
      }
      assertThat(offsetRows(admin, orderSchema, slot)).as("a stored position").isPositive();

      // the slot is lost while the relay is stopped, and 100 orders are written meanwhile
      admin.select(DSL.field("pg_drop_replication_slot({0})", DSL.val(slot))).fetch();
      List<String> lost = place(orders, 100);

      // the relay refuses: one sentence, exit status 1, nothing published
      StringWriter out = new StringWriter();
      StringWriter err = new StringWriter();
      RelayCommand run = new RelayCommand();
      run.env = env;
      int status = relay(run, out, err, orderSchema, prefix);
      assertThat(status).as(err.toString()).isEqualTo(1);
      List<String> lines = err.toString().lines().toList();
      assertThat(lines).hasSize(1);
      assertThat(lines.get(0))
          .startsWith(
              "ordinal: Slot "
                  + slot
                  + " is missing, and the relay had relayed "
                  + orderSchema
                  + ".outbox up to ")
          .contains("so events committed since may not be on Kafka")
          .contains("./ordinal relay reset-position --schema " + orderSchema + " --execute");
      assertThat(messageIds(bootstrap, topic)).doesNotContainAnyElementsOf(lost).hasSize(20);

      // the commands it names: a slot from now, then the rows since, under their own ids
      RelayCommand.ResetPosition reset = new RelayCommand.ResetPosition();
      reset.env = env;
      assertThat(execute(reset, out, err, "--schema", orderSchema, "--execute"))
          .as(err.toString())
          .isZero();
      Matcher from = FROM.matcher(lines.get(0));
      assertThat(from.find()).as(lines.get(0)).isTrue();
      StringWriter plan = new StringWriter();
      assertThat(republish(env, plan, err, orderSchema, prefix, from.group(1))).isZero();
      assertThat(messageIds(bootstrap, topic)).as("a dry run publishes nothing").hasSize(20);
      StringWriter published = new StringWriter();
      assertThat(republish(env, published, err, orderSchema, prefix, from.group(1), "--execute"))
          .as(err.toString())
          .isZero();
      Matcher count = Pattern.compile("Published again: (\\d+) rows").matcher(published.toString());
      assertThat(count.find()).as(published.toString()).isTrue();
      int again = Integer.parseInt(count.group(1));
      int alreadyRelayed = again - 100;
      assertThat(alreadyRelayed)
          .as("from a minute before the last relayed commit: the 20 relayed ones again")
          .isEqualTo(20);
      assertThat(plan.toString()).contains(orderSchema + ".outbox: " + again + " rows");

      List<String> onTopic = messageIds(bootstrap, topic);
      assertThat(new HashSet<>(onTopic)).containsAll(lost).hasSize(120);
      assertThat(onTopic).hasSize(20 + again);

      // billing applies the 100 new ones and skips the others as duplicates
      await()
          .atMost(Duration.ofSeconds(60))
          .until(() -> billing.applied() == 120 && billing.duplicates() == alreadyRelayed);

      // and the relay streams again, from the new slot
      try (RelayApp relay = RelayApp.start(relaySettings)) {
        relay.relays().get(0).awaitStreaming(Duration.ofSeconds(60));
        place(orders, 1);
        await().atMost(Duration.ofSeconds(60)).until(() -> billing.applied() == 121);
      }
    } finally {
      dropIfIdle(admin, slot);
    }
  }

  /**
   * The runbook still restores every row when the outbox retention ran between the slot's loss and
   * the runbook, with a retention of one second, and the writer's clock is two minutes behind the
   * database's: retention keeps what no relay has published, and republish chooses rows by when the
   * database wrote them. (Retention deleted the 100 rows written meanwhile, and with the writer's
   * clock behind republish chose none of them: "0 rows".)
   */
  @Test
  void aRetentionOfASecondAndAWriterClockBehindStillLeaveEveryLostRowToRepublish(TestNamespace ns)
      throws Exception {
    String orderSchema = ns.schema("orders_retained");
    String slot = RelayConfig.defaultName(orderSchema);
    Clock behind = Clock.offset(Clock.systemUTC(), Duration.ofMinutes(-2)); // the writer's
    DatabaseSettings db =
        new DatabaseSettings(ns.stack().jdbcUrl(), ns.stack().dbUser(), ns.stack().dbPassword());
    String bootstrap = ns.stack().kafkaBootstrap();
    String prefix = ns.topicPrefix() + "-retained";
    RelaySettings relaySettings = relaySettings(db, bootstrap, orderSchema, prefix);
    String topic = prefix + ".order";
    DSLContext admin = DSL.using(ns.dataSource(), SQLDialect.POSTGRES);
    Map<String, String> env = ns.serverEnvironment();
    try (OrderServiceApp orders =
        new OrderServiceApp(
                OrderServiceSettings.builder(db)
                    .auth(ApiAuth.none())
                    .schema(orderSchema)
                    .port(0)
                    .poolSize(2)
                    .management(ManagementSettings.off())
                    .build(),
                behind)
            .start()) {
      try (RelayApp relay = RelayApp.start(relaySettings)) {
        relay.relays().get(0).awaitStreaming(Duration.ofSeconds(60));
        place(orders, 20);
        await()
            .atMost(Duration.ofSeconds(60))
            .until(() -> messageIds(bootstrap, topic).size() == 20);
      }
      assertThat(admin.fetchCount(DSL.table(DSL.name(orderSchema, "outbox_relayed"))))
          .as("the relay said how far it published")
          .isOne();

      admin.select(DSL.field("pg_drop_replication_slot({0})", DSL.val(slot))).fetch();
      List<String> lost = place(orders, 100);
      // retention of one second, run an hour later: every row is past its age
      int deleted;
      try (com.zaxxer.hikari.HikariDataSource pool =
          db.withSchema(orderSchema).pool("retention-it", 1)) {
        deleted =
            new OutboxRetention(
                    OutboxRetentionConfig.builder(OutboxRetentionMode.AFTER_AGE)
                        .retention(Duration.ofSeconds(1))
                        .build(),
                    DSL.using(pool, SQLDialect.POSTGRES),
                    new SimpleMeterRegistry(),
                    Clock.offset(Clock.systemUTC(), Duration.ofHours(1)))
                .runOnce();
      }
      assertThat(deleted).as("rows no relay published are kept").isZero();

      StringWriter out = new StringWriter();
      StringWriter err = new StringWriter();
      RelayCommand run = new RelayCommand();
      run.env = env;
      assertThat(relay(run, out, err, orderSchema, prefix)).as(err.toString()).isEqualTo(1);
      Matcher from = FROM.matcher(err.toString());
      assertThat(from.find()).as(err.toString()).isTrue();
      RelayCommand.ResetPosition reset = new RelayCommand.ResetPosition();
      reset.env = env;
      assertThat(execute(reset, out, err, "--schema", orderSchema, "--execute")).isZero();
      StringWriter published = new StringWriter();
      assertThat(republish(env, published, err, orderSchema, prefix, from.group(1), "--execute"))
          .as(err.toString())
          .isZero();
      assertThat(new HashSet<>(messageIds(bootstrap, topic))).containsAll(lost).hasSize(120);
    } finally {
      dropIfIdle(admin, slot);
    }
  }

  /** Drops {@code slot} when it exists and no relay streams from it. */
  private static void dropIfIdle(DSLContext admin, String slot) {
    admin
        .select(DSL.field("pg_drop_replication_slot(slot_name)"))
        .from(DSL.table("pg_replication_slots"))
        .where(DSL.field("slot_name", String.class).eq(slot))
        .and(DSL.field("active", Boolean.class).isFalse())
        .fetch();
  }

  /** {@code ./ordinal relay} of {@code schema}'s outbox, without a management port. */
  private static int relay(
      RelayCommand run, StringWriter out, StringWriter err, String schema, String prefix) {
    return execute(
        run, out, err, "--schema", schema, "--topic-prefix", prefix, "--management-port", "-1");
  }

  /** The relay of {@code schema}'s outbox, without a management port. */
  private static RelaySettings relaySettings(
      DatabaseSettings db, String bootstrap, String schema, String prefix) {
    return RelaySettings.builder(db, bootstrap)
        .schemas(List.of(schema))
        .topicPrefix(prefix)
        .management(ManagementSettings.off())
        .build();
  }

  private static List<String> place(OrderServiceApp orders, int n) {
    List<String> ids = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      ids.add(
          orders
              .orders()
              .place(NewOrder.single("c-" + i, "EUR", new BigDecimal("10.00")))
              .messageId()
              .toString());
    }
    return ids;
  }

  private static int execute(
      Callable<Integer> command, StringWriter out, StringWriter err, String... args) {
    CommandLine cli = new CommandLine(command);
    cli.setOut(new PrintWriter(out, true));
    cli.setErr(new PrintWriter(err, true));
    return cli.execute(args);
  }

  /** {@code relay republish --schema --topic-prefix --from}, then {@code more}. */
  private static int republish(
      Map<String, String> env,
      StringWriter out,
      StringWriter err,
      String schema,
      String prefix,
      String from,
      String... more) {
    RelayCommand.Republish republish = new RelayCommand.Republish();
    republish.env = env;
    List<String> args =
        new ArrayList<>(List.of("--schema", schema, "--topic-prefix", prefix, "--from", from));
    args.addAll(List.of(more));
    return execute(republish, out, err, args.toArray(String[]::new));
  }

  private static int offsetRows(DSLContext admin, String schema, String slot) {
    return admin.fetchCount(DSL.table(DSL.name(schema, slot + "_offsets")));
  }

  /**
   * Every record's message id on {@code topic}, from the beginning to its current end; none while
   * the topic does not exist yet.
   */
  private static List<String> messageIds(String bootstrap, String topic) {
    List<String> ids = new ArrayList<>();
    try (KafkaConsumer<String, String> consumer = TestKafka.consumer(bootstrap)) {
      List<TopicPartition> partitions =
          consumer.partitionsFor(topic).stream()
              .map(p -> new TopicPartition(topic, p.partition()))
              .toList();
      if (partitions.isEmpty()) {
        return ids;
      }
      consumer.assign(partitions);
      consumer.seekToBeginning(partitions);
      Map<TopicPartition, Long> end = consumer.endOffsets(partitions);
      await()
          .atMost(Duration.ofSeconds(30))
          .until(
              () -> {
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) {
                  ids.add(MessageHeaders.get(r.headers(), MessageHeaders.MESSAGE_ID).orElseThrow());
                }
                return partitions.stream().allMatch(p -> consumer.position(p) >= end.get(p));
              });
    }
    return ids;
  }
}

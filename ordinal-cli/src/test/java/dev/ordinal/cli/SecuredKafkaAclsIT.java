package dev.ordinal.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.ordinal.billing.BillingApp;
import dev.ordinal.billing.BillingSettings;
import dev.ordinal.lab.devstack.SecuredKafka;
import dev.ordinal.lab.sim.IntegratorSimulator;
import dev.ordinal.lab.sim.PaymentGatewaySimulator;
import dev.ordinal.messaging.ConfigurationException;
import dev.ordinal.messaging.db.DatabaseSettings;
import dev.ordinal.messaging.inbox.InboxConsumerConfig;
import dev.ordinal.messaging.kafka.KafkaClients;
import dev.ordinal.messaging.kafka.MessageHeaders;
import dev.ordinal.monitor.MonitorApp;
import dev.ordinal.monitor.MonitorConfig;
import dev.ordinal.monitor.MonitorSettings;
import dev.ordinal.order.NewOrder;
import dev.ordinal.order.OrderServiceApp;
import dev.ordinal.relay.RelayApp;
import dev.ordinal.relay.RelaySettings;
import dev.ordinal.runtime.Health;
import dev.ordinal.runtime.LoopHealth;
import dev.ordinal.runtime.ManagementSettings;
import dev.ordinal.testkit.LogCapture;
import dev.ordinal.testkit.OrdinalStackExtension;
import dev.ordinal.testkit.TestNamespace;
import dev.ordinal.testkit.acl.ServiceAcls;
import dev.ordinal.testkit.tls.TestCertificates;
import java.io.IOException;
import java.io.Writer;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.function.Supplier;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.StreamsConfig;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * On a broker whose only listener is SASL_SSL (a CA and certificate the test made, SCRAM-SHA-512)
 * and whose authorizer allows nothing by default, each service and the operator log in as a user of
 * their own granted exactly {@link ServiceAcls} (the table of docs/DEPLOY.md): the relay, billing
 * and the monitor, each with its own client properties file, carry an order to an issued invoice,
 * and {@code lag}, {@code replay --execute}, {@code dlq redrive} and {@code relay republish
 * --execute} work with the operator's file. Without one of its ACLs billing, the monitor and the
 * relay are unready, and each operator command stops with exit status 2, saying which ACL is
 * missing in one sentence. No password appears in any output or log.
 */
@ExtendWith(OrdinalStackExtension.class)
class SecuredKafkaAclsIT extends CommandTest {
  @TempDir static Path dir;
  static SecuredKafka kafka;
  static Map<String, Map<String, Object>> users = new HashMap<>();

  /** A monitor's user granted its rows but its group's: the application id is not a setting. */
  static final String MONITOR_WITHOUT_GROUP = "monitor-nogroup";

  @BeforeAll
  static void aSaslSslBrokerWithAUserPerService() {
    kafka =
        SecuredKafka.start(
            dir.resolve("broker"), TestCertificates.create(dir.resolve("ca")).forKafka());
    for (String user :
        List.of(
            ServiceAcls.RELAY,
            ServiceAcls.BILLING,
            ServiceAcls.MONITOR,
            ServiceAcls.OPERATOR,
            MONITOR_WITHOUT_GROUP)) {
      users.put(user, kafka.addUser(user));
    }
  }

  @AfterAll
  static void stop() {
    if (kafka != null) {
      kafka.close();
    }
  }

  @Test
  void eachServiceAndOperatorCommandWorksWithExactlyItsAcls(TestNamespace ns) throws Exception {
    ServiceAcls.Names names =
        new ServiceAcls.Names(
            ns.topicPrefix(), ns.group("billing"), MonitorConfig.DEFAULT_APPLICATION_ID);
    for (String user : users.keySet()) {
      grant(ServiceAcls.bindings(user, names));
    }
    String orders = ns.schema("orders");
    String billingSchema = ns.schema("billing");
    String orderTopic = ns.topicPrefix() + ".order";
    try (LogCapture logs = new LogCapture();
        IntegratorSimulator integrator = Pipeline.quickIntegrator();
        PaymentGatewaySimulator gateway = Pipeline.quickGateway();
        OrderServiceApp orderService = Pipeline.orderService(db(ns), orders);
        BillingApp billing =
            BillingApp.start(billing(ns, names, billingSchema, integrator, gateway));
        RelayApp relay =
            new RelayApp(
                    RelaySettings.builder(db(ns), clients(ServiceAcls.RELAY))
                        .schemas(List.of(orders, billingSchema))
                        .topicPrefix(ns.topicPrefix())
                        .management(ManagementSettings.off())
                        .build())
                .start();
        MonitorApp monitor =
            MonitorApp.start(
                MonitorSettings.builder(clients(ServiceAcls.MONITOR))
                    .topicPrefix(ns.topicPrefix())
                    .kafka(Map.of(StreamsConfig.STATE_DIR_CONFIG, dir.resolve("state").toString()))
                    .management(ManagementSettings.off())
                    .build())) {
      for (var r : relay.relays()) {
        r.awaitStreaming(Duration.ofSeconds(60));
      }
      orderService.orders().place(NewOrder.single("c-acl", "EUR", new BigDecimal("12.50")));

      // order topic (relay), billing's inbox and integrator, billing's outbox (relay) to invoice
      await()
          .atMost(Duration.ofSeconds(60))
          .until(
              () ->
                  billing
                          .dsl()
                          .fetchCount(
                              DSL.table(DSL.name(billingSchema, "invoice")),
                              DSL.field(DSL.name("status")).eq("ISSUED"))
                      == 1);
      await().atMost(Duration.ofSeconds(60)).until(() -> monitor.health().ready());
      assertThat(relay.health().ready()).as(relay.health().toString()).isTrue();
      assertThat(billing.health().ready()).as(billing.health().toString()).isTrue();
      billing.close(); // replay moves a group that no member holds

      Map<String, String> env = new HashMap<>(ns.serverEnvironment());
      env.put("ORDINAL_KAFKA_BOOTSTRAP", kafka.bootstrapServers());
      List<String> outputs = new ArrayList<>();

      LagCommand lag = new LagCommand();
      lag.env = env;
      asOperator(outputs, lag, "--group", names.billingGroup());
      assertThat(out.toString()).contains(names.billingGroup()).contains(orderTopic);

      ReplayCommand replay = new ReplayCommand();
      replay.env = env;
      asOperator(
          outputs,
          replay,
          "--group",
          names.billingGroup(),
          "--topic",
          orderTopic,
          "--to-earliest",
          "--execute",
          "--schema",
          billingSchema);

      String dlq = InboxConsumerConfig.deadLetterTopic(orderTopic);
      aDeadLetter(dlq, orderTopic);
      CommandLine dlqCli = new CommandLine(new DlqCommand());
      ((DlqCommand.Subcommand) dlqCli.getSubcommands().get("redrive").getCommand()).selection.env =
          env;
      asOperator(
          outputs, dlqCli, "redrive", "--execute", "--topic", dlq, "--schema", billingSchema);
      assertThat(out.toString()).contains("Re-drove 1 dead letter(s) of " + dlq);

      for (String schema : List.of(orders, billingSchema)) {
        CommandLine relayCli = new CommandLine(new RelayCommand());
        ((RelayCommand.Recovery) relayCli.getSubcommands().get("republish").getCommand()).env = env;
        asOperator(
            outputs,
            relayCli,
            "republish",
            "--schema",
            schema,
            "--topic-prefix",
            ns.topicPrefix(),
            "--from",
            "2000-01-01T00:00:00Z",
            "--execute");
        assertThat(out.toString())
            .contains(schema + ".outbox: 1 rows")
            .contains("Published again: 1 rows");
      }
      outputs.add(relay.health().toString() + monitor.health());
      assertNoPassword(outputs, logs);
    }
  }

  @Test
  void withoutReadOnItsGroupBillingIsUnreadyNamingTheGroupAndTheOperation(TestNamespace ns)
      throws Exception {
    ServiceAcls.Names names = names(ns, "denied");
    List<AclBinding> all = ServiceAcls.bindings(ServiceAcls.BILLING, names);
    grant(all.stream().filter(b -> !b.pattern().name().equals(names.billingGroup())).toList());
    try (LogCapture logs = new LogCapture();
        IntegratorSimulator integrator = Pipeline.quickIntegrator();
        PaymentGatewaySimulator gateway = Pipeline.quickGateway();
        BillingApp billing =
            BillingApp.start(
                billing(ns, names, ns.schema("billing_denied"), integrator, gateway))) {
      await()
          .atMost(Duration.ofSeconds(30))
          .until(
              () ->
                  billing.health().loops().stream()
                      .anyMatch(l -> l.lastError() != null && l.name().contains("inbox")));
      assertThat(billing.health().ready()).isFalse();
      LoopHealth inbox =
          billing.health().loops().stream()
              .filter(l -> l.lastError() != null && l.name().contains("inbox"))
              .findFirst()
              .orElseThrow();
      assertThat(inbox.lastError())
          .isEqualTo(
              "ConfigurationException: "
                  + refusal(ServiceAcls.BILLING, "READ", "group " + names.billingGroup()));
      assertNoPassword(List.of(billing.health().toString()), logs);
    }
  }

  @Test
  void withoutCreateBillingRefusesToStartNamingTheTopicUntilTheTopicsAreMadeBeforehand(
      TestNamespace ns) throws Exception {
    ServiceAcls.Names names = names(ns, "made");
    grant(
        ServiceAcls.bindings(ServiceAcls.BILLING, names).stream()
            .filter(b -> b.entry().operation() != AclOperation.CREATE)
            .toList());
    String orderTopic = names.prefix() + ".order";
    try (LogCapture logs = new LogCapture();
        IntegratorSimulator integrator = Pipeline.quickIntegrator();
        PaymentGatewaySimulator gateway = Pipeline.quickGateway()) {
      BillingSettings settings = billing(ns, names, ns.schema("billing_made"), integrator, gateway);

      assertThatThrownBy(() -> BillingApp.start(settings).close())
          .isInstanceOf(ConfigurationException.class)
          .hasMessage(refusal(ServiceAcls.BILLING, "CREATE", "topic " + orderTopic));

      try (Admin admin = kafka.admin()) {
        admin
            .createTopics(
                List.of(
                    new NewTopic(orderTopic, 1, (short) 1),
                    new NewTopic(names.prefix() + ".order-bulk", 1, (short) 1)))
            .all()
            .get();
      }
      try (BillingApp billing = BillingApp.start(settings)) {
        assertThat(billing.awaitAssignment(Duration.ofSeconds(30))).isTrue();
      }
      assertNoPassword(List.of(), logs);
    }
  }

  @Test
  void withoutWriteOnTheOrderTopicTheRelaySaysWhichGrantIsMissingUntilItIsGivenThenRelays(
      TestNamespace ns) throws Exception {
    ServiceAcls.Names names = names(ns, "nowrite");
    String orderTopic = names.prefix() + ".order";
    List<AclBinding> all = ServiceAcls.bindings(ServiceAcls.RELAY, names);
    AclBinding write =
        all.stream()
            .filter(
                b ->
                    b.pattern().name().equals(orderTopic)
                        && b.entry().operation() == AclOperation.WRITE)
            .findFirst()
            .orElseThrow();
    // every relay ACL but WRITE on the order topic: a missing grant, not a poison row
    grant(all.stream().filter(b -> b != write).toList());
    String orders = ns.schema("orders_nowrite");
    try (LogCapture logs = new LogCapture();
        OrderServiceApp orderService = Pipeline.orderService(db(ns), orders);
        RelayApp relay =
            new RelayApp(
                    RelaySettings.builder(db(ns), clients(ServiceAcls.RELAY))
                        .schemas(List.of(orders))
                        .topicPrefix(names.prefix())
                        .management(ManagementSettings.off())
                        .build())
                .start()) {
      relay.relays().get(0).awaitStreaming(Duration.ofSeconds(60));
      orderService.orders().place(NewOrder.single("c-nowrite", "EUR", new BigDecimal("3.00")));

      // without WRITE it may not even describe the topic (WRITE implies DESCRIBE)
      awaitRelayError(
          relay,
          refusal(
              ServiceAcls.RELAY, "DESCRIBE (which READ and WRITE imply)", "topic " + orderTopic));
      // DESCRIBE alone: the send itself is refused, named as the missing WRITE
      AclBinding describe =
          new AclBinding(
              write.pattern(),
              new AccessControlEntry(
                  write.entry().principal(),
                  write.entry().host(),
                  AclOperation.DESCRIBE,
                  write.entry().permissionType()));
      grant(List.of(describe));
      awaitRelayError(relay, refusal(ServiceAcls.RELAY, "WRITE", "topic " + orderTopic));
      assertThat(relay.relays().get(0).relayed()).isZero();

      // granted: the relay, running again on its own, publishes the order
      grant(List.of(write));
      await().atMost(Duration.ofSeconds(60)).until(() -> relay.relays().get(0).relayed() == 1);
      assertNoPassword(List.of(relay.health().toString()), logs);
    }
  }

  @Test
  void withoutReadOnItsGroupTheMonitorIsUnreadyNamingTheGroupAndTheOperation(TestNamespace ns)
      throws Exception {
    ServiceAcls.Names names = names(ns, "mon");
    // every ACL of the monitor's rows but READ on its group, for a user of its own
    grant(
        ServiceAcls.bindings(ServiceAcls.MONITOR, names).stream()
            .filter(b -> b.pattern().resourceType() != ResourceType.GROUP)
            .map(
                b ->
                    new AclBinding(
                        b.pattern(),
                        new AccessControlEntry(
                            "User:" + MONITOR_WITHOUT_GROUP,
                            "*",
                            b.entry().operation(),
                            AclPermissionType.ALLOW)))
            .toList());
    try (LogCapture logs = new LogCapture();
        MonitorApp monitor =
            MonitorApp.start(
                MonitorSettings.builder(clients(MONITOR_WITHOUT_GROUP))
                    .topicPrefix(names.prefix())
                    .kafka(
                        Map.of(StreamsConfig.STATE_DIR_CONFIG, dir.resolve("state-mon").toString()))
                    .management(ManagementSettings.off())
                    .build())) {
      String sentence =
          refusal(MONITOR_WITHOUT_GROUP, "READ", "group " + MonitorConfig.DEFAULT_APPLICATION_ID);
      awaitLoopError(monitor::health, sentence);
      assertThat(monitor.health().ready()).isFalse();
      assertThat(
              monitor.health().loops().stream()
                  .filter(l -> l.name().equals(MonitorApp.LOOP))
                  .findFirst()
                  .orElseThrow()
                  .lastError())
          .isEqualTo("ConfigurationException: " + sentence);
      assertNoPassword(List.of(monitor.health().toString()), logs);
    }
  }

  @Test
  void withoutAnAclItNeedsEachOperatorCommandStopsWithOneSentenceNamingTheResourceAndOperation(
      TestNamespace ns) throws Exception {
    ServiceAcls.Names names = names(ns, "op");
    String orderTopic = names.prefix() + ".order";
    String dlq = InboxConsumerConfig.deadLetterTopic(orderTopic);
    String group = names.billingGroup();
    String schema = ns.schema("orders_op");
    try (Admin admin = kafka.admin()) {
      admin
          .createTopics(List.of(new NewTopic(orderTopic, 1, (short) 1)))
          .all()
          .get(); // made beforehand: what is refused below is never CREATE
    }
    aDeadLetter(dlq, orderTopic);
    produce(orderTopic, 2);
    try (Admin admin = kafka.admin()) {
      // a group that read both records: a replay to the earliest offset moves it back by 2
      admin
          .alterConsumerGroupOffsets(
              group,
              Map.of(
                  new org.apache.kafka.common.TopicPartition(orderTopic, 0),
                  new org.apache.kafka.clients.consumer.OffsetAndMetadata(2)))
          .all()
          .get();
    }
    // the operator may describe the group and the topic, read the dead letters and describe the
    // topic's configuration, but not READ the group, READ or WRITE the topic
    String operator = "User:" + ServiceAcls.OPERATOR;
    grant(
        List.of(
            allow(operator, ResourceType.GROUP, group, "DESCRIBE"),
            allow(operator, ResourceType.TOPIC, orderTopic, "DESCRIBE"),
            allow(operator, ResourceType.TOPIC, orderTopic, "DESCRIBE_CONFIGS"),
            allow(operator, ResourceType.TOPIC, dlq, "READ")));
    try (LogCapture logs = new LogCapture();
        OrderServiceApp orderService = Pipeline.orderService(db(ns), schema)) {
      orderService.orders().place(NewOrder.single("c-op", "EUR", new BigDecimal("1.00")));
      Map<String, String> env = new HashMap<>(ns.serverEnvironment());
      env.put("ORDINAL_KAFKA_BOOTSTRAP", kafka.bootstrapServers());
      List<String> outputs = new ArrayList<>();

      LagCommand lag = new LagCommand();
      lag.env = env;
      String lagGroup = ns.group("lag-denied");
      assertRefused(outputs, lag, "DESCRIBE", "group " + lagGroup, "--group", lagGroup);

      ReplayCommand replay = new ReplayCommand();
      replay.env = env;
      assertRefused(
          outputs,
          replay,
          "READ",
          "group " + group,
          "--group",
          group,
          "--topic",
          orderTopic,
          "--to-earliest",
          "--execute",
          "--schema",
          schema);
      assertThat(
              DSL.using(ns.dataSource(), org.jooq.SQLDialect.POSTGRES)
                  .fetchCount(DSL.table(DSL.name(schema, "replay_log"))))
          .as("a refused replay records nothing")
          .isZero();

      CommandLine dlqCli = new CommandLine(new DlqCommand());
      ((DlqCommand.Subcommand) dlqCli.getSubcommands().get("redrive").getCommand()).selection.env =
          env;
      assertRefused(
          outputs,
          dlqCli,
          "WRITE",
          "topic " + orderTopic,
          "redrive",
          "--execute",
          "--topic",
          dlq,
          "--schema",
          schema);

      CommandLine relayCli = new CommandLine(new RelayCommand());
      ((RelayCommand.Recovery) relayCli.getSubcommands().get("republish").getCommand()).env = env;
      assertRefused(
          outputs,
          relayCli,
          "WRITE",
          "topic " + orderTopic,
          "republish",
          "--schema",
          schema,
          "--topic-prefix",
          names.prefix(),
          "--from",
          "2000-01-01T00:00:00Z",
          "--execute");
      assertNoPassword(outputs, logs);
    }
  }

  /** The one sentence for {@code user}'s missing ACL: {@code operation} on {@code resource}. */
  private static String refusal(String user, String operation, String resource) throws IOException {
    return refusalTo(file(user) + " (ORDINAL_KAFKA_CONFIG)", operation, resource);
  }

  /** The sentence for a missing ACL of the clients of {@code source}'s properties. */
  private static String refusalTo(String source, String operation, String resource) {
    return "The Kafka cluster at "
        + kafka.bootstrapServers()
        + " (ORDINAL_KAFKA_BOOTSTRAP) does not allow "
        + operation
        + " on "
        + resource
        + " to the user of the Kafka client properties of "
        + source
        + "; grant it that ACL (docs/DEPLOY.md, \"Kafka ACLs\").";
  }

  /**
   * Runs {@code command} with {@code args} as the operator ({@code --command-config}) and asserts
   * it stops with status 2 and the one sentence for the missing {@code operation} on {@code
   * resource}.
   */
  private void assertRefused(
      List<String> outputs, Object command, String operation, String resource, String... args)
      throws IOException {
    clear();
    String[] all = withOperatorFile(args);
    CommandLine cli = command instanceof CommandLine c ? c : new CommandLine(command);
    int status = printingHere(cli).execute(all);
    outputs.add(out.toString() + err.toString());
    assertThat(err.toString().strip())
        .as(String.join(" ", all))
        .isEqualTo(
            "ordinal: "
                + refusalTo(
                    file(ServiceAcls.OPERATOR) + " (--command-config)", operation, resource));
    assertThat(status).isEqualTo(2);
  }

  private static String[] withOperatorFile(String... args) throws IOException {
    String[] all = Arrays.copyOf(args, args.length + 2);
    all[args.length] = "--command-config";
    all[args.length + 1] = file(ServiceAcls.OPERATOR).toString();
    return all;
  }

  private static AclBinding allow(
      String principal,
      org.apache.kafka.common.resource.ResourceType type,
      String name,
      String operation) {
    return new AclBinding(
        new ResourcePattern(type, name, PatternType.LITERAL),
        new AccessControlEntry(
            principal, "*", AclOperation.fromString(operation), AclPermissionType.ALLOW));
  }

  private static void produce(String topic, int records) throws Exception {
    Map<String, Object> p = new HashMap<>(kafka.superUserProperties());
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
    try (KafkaProducer<String, String> producer =
        new KafkaProducer<>(p, new StringSerializer(), new StringSerializer())) {
      for (int i = 0; i < records; i++) {
        producer.send(new ProducerRecord<>(topic, 0, "k" + i, "{}")).get();
      }
    }
  }

  /** Names of a test's own ({@code <prefix>-<suffix>}): the class's namespace is shared. */
  private static ServiceAcls.Names names(TestNamespace ns, String suffix) {
    return new ServiceAcls.Names(
        ns.topicPrefix() + "-" + suffix,
        ns.group("billing-" + suffix),
        MonitorConfig.DEFAULT_APPLICATION_ID);
  }

  private static void awaitRelayError(RelayApp relay, String sentence) {
    awaitLoopError(relay::health, sentence);
  }

  /** Waits until a loop of the service whose health {@code health} gives fails with it. */
  private static void awaitLoopError(Supplier<Health> health, String sentence) {
    await()
        .atMost(Duration.ofSeconds(60))
        .until(
            () ->
                health.get().loops().stream()
                    .anyMatch(l -> l.lastError() != null && l.lastError().contains(sentence)));
  }

  private static void grant(List<AclBinding> bindings) throws Exception {
    try (Admin admin = kafka.admin()) {
      admin.createAcls(bindings).all().get();
    }
  }

  private static DatabaseSettings db(TestNamespace ns) {
    return new DatabaseSettings(ns.stack().jdbcUrl(), ns.stack().dbUser(), ns.stack().dbPassword());
  }

  /** The clients of {@code user}, from its own properties file as ORDINAL_KAFKA_CONFIG names it. */
  private static KafkaClients clients(String user) throws IOException {
    return KafkaClients.fromFile(kafka.bootstrapServers(), file(user), KafkaClients.FILE_SETTING);
  }

  private static Path file(String user) throws IOException {
    Path f = dir.resolve(user + ".properties");
    if (!Files.exists(f)) {
      Properties p = new Properties();
      users.get(user).forEach((k, v) -> p.setProperty(k, v.toString()));
      try (Writer w = Files.newBufferedWriter(f)) {
        p.store(w, null);
      }
    }
    return f;
  }

  private static BillingSettings billing(
      TestNamespace ns,
      ServiceAcls.Names names,
      String schema,
      IntegratorSimulator integrator,
      PaymentGatewaySimulator gateway)
      throws IOException {
    return Pipeline.billing(
        db(ns),
        clients(ServiceAcls.BILLING),
        schema,
        names.prefix(),
        names.billingGroup(),
        integrator,
        gateway);
  }

  private static void aDeadLetter(String dlq, String topic) throws Exception {
    Map<String, Object> p = new HashMap<>(kafka.superUserProperties());
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
    try (Admin admin = kafka.admin()) {
      admin
          .createTopics(List.of(new org.apache.kafka.clients.admin.NewTopic(dlq, 1, (short) 1)))
          .all()
          .get();
    }
    try (KafkaProducer<String, String> producer =
        new KafkaProducer<>(p, new StringSerializer(), new StringSerializer())) {
      ProducerRecord<String, String> r = new ProducerRecord<>(dlq, "k", "{}");
      r.headers().add(MessageHeaders.MESSAGE_ID, MessageHeaders.encode("m-acl"));
      r.headers().add(MessageHeaders.DLQ_TOPIC, MessageHeaders.encode(topic));
      r.headers().add(MessageHeaders.DLQ_PARTITION, MessageHeaders.encode("0"));
      producer.send(r).get();
    }
  }

  /**
   * Runs {@code command} with {@code args} and the operator's file as {@code --command-config},
   * printing here; keeps what it printed in {@code outputs}, and asserts its exit status is 0.
   */
  private void asOperator(List<String> outputs, Object command, String... args) throws IOException {
    clear();
    String[] all = withOperatorFile(args);
    CommandLine cli = command instanceof CommandLine c ? c : new CommandLine(command);
    int status = printingHere(cli).execute(all);
    outputs.add(out.toString() + err.toString());
    assertThat(status).as(String.join(" ", all) + ": " + err).isZero();
  }

  /** No output and no log event holds any user's password (its SASL JAAS configuration). */
  private static void assertNoPassword(List<String> outputs, LogCapture logs) {
    List<String> secrets = new ArrayList<>();
    users.values().forEach(p -> secrets.add(password(p.get("sasl.jaas.config").toString())));
    secrets.add(password(kafka.superUserProperties().get("sasl.jaas.config").toString()));
    List<String> texts = new ArrayList<>(outputs);
    texts.addAll(logs.texts());
    for (String text : texts) {
      for (String secret : secrets) {
        assertThat(text).doesNotContain(secret);
      }
    }
  }

  private static String password(String jaas) {
    int at = jaas.indexOf("password=\"") + "password=\"".length();
    return jaas.substring(at, jaas.indexOf('"', at));
  }
}

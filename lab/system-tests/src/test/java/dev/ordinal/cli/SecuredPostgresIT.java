package dev.ordinal.cli;

import static dev.ordinal.testkit.TopicReads.onlyRecord;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.ordinal.contracts.AggregateType;
import dev.ordinal.lab.demo.LocalSystem;
import dev.ordinal.lab.devstack.EmbeddedPostgresServer;
import dev.ordinal.messaging.db.DatabaseSettings;
import dev.ordinal.messaging.kafka.MessageHeaders;
import dev.ordinal.messaging.kafka.Topics;
import dev.ordinal.order.NewOrder;
import dev.ordinal.order.PlacedOrder;
import dev.ordinal.relay.RelayApp;
import dev.ordinal.relay.RelayConfig;
import dev.ordinal.testkit.OrdinalStackExtension;
import dev.ordinal.testkit.TestNamespace;
import dev.ordinal.testkit.tls.TestCertificates;
import dev.ordinal.testkit.tls.TlsPostgres;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.lang.reflect.Field;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.function.Function;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.jooq.DSLContext;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;

/**
 * Against a PostgreSQL that takes only TLS ({@code hostssl} lines only), with {@code
 * sslmode=verify-full} and the CA's certificate as {@code sslrootcert} in {@code ORDINAL_DB_URL}:
 * order-service, billing and the relay of both outboxes (each through its runtime) place, relay,
 * apply and issue an order, the relay's replication streams and its offsets store are TLS sessions,
 * and the operator commands that read PostgreSQL answer. With another CA's certificate as {@code
 * sslrootcert}, each service and command refuses in one sentence that names the setting and says
 * certificate verification failed, exit status 2, with no stack trace and no password in what it
 * printed or logged.
 */
@ExtendWith(OrdinalStackExtension.class)
class SecuredPostgresIT {
  /** How long a probe waits for the one record a topic holds. */
  private static final Duration PROBE_WITHIN = Duration.ofSeconds(60);

  private static final String PASSWORD = "pw-never-printed-7Qx";
  private static final String SSL_PASSWORD = "sslpw-never-printed-9Kz";

  @TempDir static Path dir;
  static TlsPostgres pg;
  static TestCertificates otherCa;

  @BeforeAll
  static void startTheTlsServer() {
    pg = TlsPostgres.start(dir.resolve("pg"), TestCertificates.create(dir.resolve("ca")));
    otherCa = TestCertificates.create(dir.resolve("other-ca"));
  }

  @AfterAll
  static void stopIt() {
    if (pg != null) {
      pg.close();
    }
  }

  @Test
  void everyServiceAndCommandWorksOverVerifiedTlsAndTheRelayStreamsThroughIt(TestNamespace ns)
      throws Exception {
    // the server trusts the TLS session (hostssl ... trust): the passwords are there to be hidden
    String url = pg.verifiedUrl() + "&sslpassword=" + SSL_PASSWORD;
    DatabaseSettings db = new DatabaseSettings(url, EmbeddedPostgresServer.USER, PASSWORD);
    String orders = ns.schema("orders");
    String billing = ns.schema("billing");
    String prefix = ns.topicPrefix();
    String bootstrap = ns.stack().kafkaBootstrap();
    try (LogCapture logs = new LogCapture();
        LocalSystem system =
            LocalSystem.forTests(db, bootstrap, orders)
                .billing(b -> b.schema(billing).topicPrefix(prefix).group(ns.group("billing")))
                .start()) {
      RelayApp relay = system.relay();
      for (var r : relay.relays()) {
        r.awaitStreaming(Duration.ofSeconds(60));
      }
      PlacedOrder placed =
          system.orders().orders().place(NewOrder.single("c-tls", "EUR", new BigDecimal("9.90")));

      // through the order topic (relay of orders), billing's inbox, the integrator, and billing's
      // own outbox (relay of billing) to the invoice topic
      ConsumerRecord<String, String> event =
          onlyRecord(
              bootstrap, AggregateType.ORDER.topic(prefix), ns.group("probe-order"), PROBE_WITHIN);
      assertThat(MessageHeaders.get(event.headers(), MessageHeaders.MESSAGE_ID))
          .contains(placed.messageId().toString());
      DSLContext billingDb = system.billing().dsl();
      await()
          .atMost(Duration.ofSeconds(60))
          .until(
              () ->
                  billingDb.fetchCount(
                          DSL.table(DSL.name(billing, "invoice")),
                          DSL.field(DSL.name("status")).eq("ISSUED"))
                      == 1);
      ConsumerRecord<String, String> issued =
          onlyRecord(
              bootstrap,
              AggregateType.INVOICE.topic(prefix),
              ns.group("probe-invoice"),
              PROBE_WITHIN);
      assertThat(issued.key()).isEqualTo(placed.orderId().toString());

      try (Connection c = verifiedConnection()) {
        DSLContext server = DSL.using(c);
        // both replication streams are TLS sessions (the server takes nothing else, too)
        assertThat(
                server
                    .resultQuery(
                        "select count(*) from pg_stat_replication r join pg_stat_ssl s using (pid)"
                            + " where s.ssl")
                    .fetchOne(0, Integer.class))
            .isEqualTo(2);
        assertThat(
                server
                    .resultQuery(
                        "select count(*) from pg_stat_activity a join pg_stat_ssl s using (pid)"
                            + " where a.backend_type in ('client backend', 'walsender')"
                            + " and not s.ssl")
                    .fetchOne(0, Integer.class))
            .isZero();
        // each relay stored its position beside its outbox, over its own TLS session
        for (String schema : List.of(orders, billing)) {
          String table = RelayConfig.defaultName(schema) + "_offsets";
          await()
              .atMost(Duration.ofSeconds(30))
              .until(() -> server.fetchCount(DSL.table(DSL.name(schema, table))) == 1);
        }
      }

      Map<String, String> env = environment(ns, url);
      Run audit = run(env, "audit", "--schema", billing);
      assertThat(audit.status).as(audit.toString()).isZero();
      Run errors = run(env, "invoices", "errors", "--schema", billing);
      assertThat(errors.status).as(errors.toString()).isZero();
      // it read billing's schema over TLS and found no replay log there (none was executed)
      Run history =
          run(env, "replay", "--history", "--group", ns.group("billing"), "--schema", billing);
      assertThat(history.err.strip())
          .as(history.toString())
          .isEqualTo(
              "ordinal: No replay is recorded in schema "
                  + billing
                  + " for group "
                  + ns.group("billing")
                  + " (it has no replay_log).");
      Run republish =
          run(
              env,
              "relay",
              "republish",
              "--schema",
              orders,
              "--topic-prefix",
              prefix,
              "--from",
              "2000-01-01T00:00:00Z");
      assertThat(republish.status).as(republish.toString()).isZero();
      assertThat(republish.out).contains(orders + ".outbox: 1 rows");
      Run lag = run(env, "lag", "--slot", RelayConfig.defaultName(orders));
      assertThat(lag.status).as(lag.toString()).isZero();
      assertThat(lag.out).contains(RelayConfig.defaultName(orders));
      // billing makes its dead-letter topic with the first dead letter: an empty one is enough
      Topics.ensure(bootstrap, prefix + ".order.dlq", 1);
      Run dlq = run(env, "dlq", "list", "--topic", prefix + ".order.dlq", "--schema", billing);
      assertThat(dlq.status).as(dlq.toString()).isZero();
      for (Run r : List.of(audit, errors, history, republish, lag, dlq)) {
        assertThat(r.out + r.err).doesNotContain(PASSWORD).doesNotContain(SSL_PASSWORD);
      }
      logs.assertNoSecret();
    }
  }

  @Test
  void anotherCasCertificateIsRefusedInOneSentenceByEveryServiceAndCommand(TestNamespace ns) {
    String url = pg.verifiedUrl(otherCa.caCertificate()) + "&sslpassword=" + SSL_PASSWORD;
    Map<String, String> env = environment(ns, url);
    String expected =
        "ordinal: PostgreSQL at "
            + DatabaseSettings.redact(url)
            + " (ORDINAL_DB_URL): certificate verification failed: the server's certificate is"
            + " not signed by the CA in sslrootcert="
            + otherCa.caCertificate().toAbsolutePath()
            + "; set sslrootcert to the certificate of the CA that signed the server's.";
    String billing = ns.schema("billing_refused");
    Function<String, String[]> service =
        name ->
            new String[] {
              name,
              "--schema",
              billing,
              "--topic-prefix",
              ns.topicPrefix(),
              "--management-port",
              "-1"
            };
    List<String[]> commands =
        List.of(
            new String[] {
              "order-service", "--auth", "none", "--port", "0", "--management-port", "-1"
            },
            service.apply("billing"),
            service.apply("relay"),
            new String[] {"audit", "--schema", billing},
            new String[] {"invoices", "errors", "--schema", billing},
            new String[] {"replay", "--history", "--schema", billing},
            new String[] {
              "relay", "republish", "--schema", billing, "--from", "2000-01-01T00:00:00Z"
            },
            new String[] {"dlq", "list", "--topic", ns.topic("order.dlq"), "--schema", billing},
            new String[] {"lag", "--slot", RelayConfig.defaultName(billing)});

    try (LogCapture logs = new LogCapture()) {
      for (String[] args : commands) {
        Run r = run(env, args);
        assertThat(r.status).as(r.toString()).isEqualTo(2);
        assertThat(r.err.lines().toList()).as(r.toString()).containsExactly(expected);
        assertThat(r.out + r.err).doesNotContain(PASSWORD).doesNotContain(SSL_PASSWORD);
      }
      // the console shows errors only: none was logged with a stack trace
      assertThat(logs.events())
          .filteredOn(e -> e.getLevel().isGreaterOrEqual(Level.ERROR))
          .allSatisfy(e -> assertThat(e.getThrowableProxy()).as(e.toString()).isNull());
      logs.assertNoSecret();
    }
  }

  /**
   * Every event logged while open, at the levels the shipped logback.xml sets too (Debezium's and
   * Kafka's loggers at WARN: their INFO configuration dumps are not written).
   */
  private static final class LogCapture implements AutoCloseable {
    private final Logger root = (Logger) LoggerFactory.getLogger(Logger.ROOT_LOGGER_NAME);
    private final ListAppender<ILoggingEvent> appender = new ListAppender<>();

    LogCapture() {
      appender.start();
      root.addAppender(appender);
    }

    List<ILoggingEvent> events() {
      synchronized (appender) {
        return List.copyOf(appender.list);
      }
    }

    /** No message and no exception message logged has either password. */
    void assertNoSecret() {
      for (ILoggingEvent e : events()) {
        StringBuilder text = new StringBuilder(e.getFormattedMessage());
        for (var t = e.getThrowableProxy(); t != null; t = t.getCause()) {
          text.append('\n').append(t.getMessage());
        }
        assertThat(text.toString())
            .as("logged by %s", e.getLoggerName())
            .doesNotContain(PASSWORD)
            .doesNotContain(SSL_PASSWORD);
      }
    }

    @Override
    public void close() {
      root.detachAppender(appender);
    }
  }

  /** The servers as a command reads them: {@code url}, the shared stack's Kafka. */
  private static Map<String, String> environment(TestNamespace ns, String url) {
    return Map.of(
        "ORDINAL_DB_URL",
        url,
        "ORDINAL_DB_USER",
        EmbeddedPostgresServer.USER,
        "ORDINAL_DB_PASSWORD",
        PASSWORD,
        "ORDINAL_KAFKA_BOOTSTRAP",
        ns.stack().kafkaBootstrap());
  }

  private static Connection verifiedConnection() throws Exception {
    Properties p = new Properties();
    p.setProperty("user", EmbeddedPostgresServer.USER);
    p.setProperty("password", EmbeddedPostgresServer.PASSWORD);
    return DriverManager.getConnection(pg.verifiedUrl(), p);
  }

  /** What one command run printed, and its exit status. */
  private record Run(List<String> args, int status, String out, String err) {}

  /** {@code ./ordinal args} in this JVM, every command reading its servers from {@code env}. */
  private static Run run(Map<String, String> env, String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    CommandLine cli = Main.commandLine(env);
    serversFrom(cli, env);
    cli.setOut(new PrintWriter(out));
    cli.setErr(new PrintWriter(err));
    int status = cli.execute(args);
    return new Run(List.of(args), status, out.toString(), err.toString());
  }

  /**
   * Points every command of {@code cli}'s tree at {@code env}'s servers: each reads them from a
   * field {@code env} of its own or of a mixin (System.getenv() otherwise).
   */
  private static void serversFrom(CommandLine cli, Map<String, String> env) {
    List<Object> holders = new ArrayList<>();
    holders.add(cli.getCommand());
    cli.getCommandSpec().mixins().values().forEach(m -> holders.add(m.userObject()));
    for (Object holder : holders) {
      for (Class<?> c = holder.getClass(); c != null && c != Object.class; c = c.getSuperclass()) {
        try {
          Field f = c.getDeclaredField("env");
          if (Map.class.isAssignableFrom(f.getType())) {
            f.setAccessible(true);
            f.set(holder, env);
          }
        } catch (NoSuchFieldException none) {
          // not here: its superclass, or nowhere
        } catch (IllegalAccessException e) {
          throw new IllegalStateException(e);
        }
      }
    }
    cli.getSubcommands().values().forEach(sub -> serversFrom(sub, env));
  }
}

package dev.ordinal.cli;

import dev.ordinal.infra.Stack;
import dev.ordinal.infra.StackConfig;
import dev.ordinal.messaging.DatabaseSettings;
import dev.ordinal.relay.OutboxRelay;
import dev.ordinal.relay.RelayConfig;
import dev.ordinal.relay.RelaySetup;
import io.javalin.Javalin;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

@Command(
    name = "relay",
    mixinStandardHelpOptions = true,
    description = {
      "Runs the CDC relay until Ctrl-C: the outbox table's WAL into Kafka through an embedded"
          + " Debezium engine. Start several for one slot: one streams, the others stand by and"
          + " take over when it dies.",
      "",
      "Database: ORDINAL_DB_URL / ORDINAL_DB_USER / ORDINAL_DB_PASSWORD (a role with LOGIN"
          + " REPLICATION; see 'relay setup-sql'), Kafka: ORDINAL_KAFKA_BOOTSTRAP; the embedded"
          + " stack when neither is set."
    },
    subcommands = {RelayCommand.SetupSql.class})
final class RelayCommand implements Callable<Integer> {

  /** Where the relay reads and writes; shared by the run and setup-sql. */
  static final class Target {
    @Option(
        names = "--schema",
        defaultValue = "orders",
        description = "Schema of the outbox table (default ${DEFAULT-VALUE}).")
    String schema;

    @Option(
        names = "--topic-prefix",
        defaultValue = "ordinal",
        description = "Topics are <prefix>.<aggregate_type> (default ${DEFAULT-VALUE}).")
    String topicPrefix;

    @Option(
        names = "--slot",
        defaultValue = RelayConfig.DEFAULT_SLOT,
        description = "Replication slot (default ${DEFAULT-VALUE}).")
    String slot;

    @Option(
        names = "--publication",
        defaultValue = RelayConfig.DEFAULT_PUBLICATION,
        description = "Publication on the outbox (default ${DEFAULT-VALUE}).")
    String publication;

    RelayConfig.Builder config(DatabaseSettings db, String bootstrap) {
      return RelayConfig.builder(db.withSchema(schema), bootstrap, schema, topicPrefix)
          .slot(slot, publication, false);
    }
  }

  @Mixin Target target;

  @Option(
      names = "--instance-id",
      description = "This relay's name in logs and metrics (default: random).")
  String instanceId;

  @Option(
      names = "--create-publication",
      negatable = true,
      defaultValue = "true",
      description =
          "Create the publication if missing (needs table ownership; default ${DEFAULT-VALUE}). Use --no-create-publication with a least-privilege role.")
  boolean createPublication;

  @Option(
      names = "--heartbeat",
      defaultValue = "PT5S",
      description =
          "WAL heartbeat interval, ISO-8601; PT0S turns it off (default ${DEFAULT-VALUE}).")
  Duration heartbeat;

  @Option(
      names = "--offset-flush-interval",
      defaultValue = "PT1S",
      description = "How often the relayed position is stored (default ${DEFAULT-VALUE}).")
  Duration offsetFlush;

  @Option(
      names = "--metrics-port",
      defaultValue = "9400",
      description =
          "Port of GET /metrics (Prometheus); -1 turns it off (default ${DEFAULT-VALUE}).")
  int metricsPort;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() throws Exception {
    if (metricsPort < -1 || metricsPort > 65535) {
      throw new CommandLine.ParameterException(
          spec.commandLine(), "--metrics-port must be -1 to 65535, not " + metricsPort);
    }
    PrintWriter out = spec.commandLine().getOut();
    CtrlC stop = new CtrlC("relay", Duration.ofSeconds(60));
    try (Stack stack = Stack.start(StackConfig.fromEnvironment(System.getenv()))) {
      DatabaseSettings db =
          new DatabaseSettings(stack.jdbcUrl(), stack.dbUser(), stack.dbPassword());
      RelayConfig.Builder b =
          target
              .config(db, stack.kafkaBootstrap())
              .createPublication(createPublication)
              .heartbeatInterval(heartbeat)
              .offsetFlushInterval(offsetFlush);
      if (instanceId != null) {
        b.instanceId(instanceId);
      }
      RelayConfig config;
      try {
        config = b.build();
      } catch (RuntimeException e) {
        throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
      }
      PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
      Javalin metrics = null;
      try (OutboxRelay relay = new OutboxRelay(config, registry).start()) {
        if (metricsPort >= 0) {
          metrics = MetricsEndpoint.start(registry, metricsPort);
        }
        out.printf(
            "relay %s: slot %s, outbox %s.outbox -> %s.<aggregate>%s; Ctrl-C stops it.%n",
            config.instanceId(),
            config.slotName(),
            config.outboxSchema(),
            config.topicPrefix(),
            metrics == null ? "" : ", metrics on http://localhost:" + metrics.port() + "/metrics");
        out.flush();
        boolean wasLeader = false;
        while (!stop.await(Duration.ofMillis(500))) {
          if (relay.isLeader() != wasLeader) {
            wasLeader = relay.isLeader();
            out.println(
                wasLeader
                    ? "leader: streaming from the slot"
                    : "standby: another relay holds the slot");
            out.flush();
          }
        }
        out.println("relay stopping: finishing in-flight sends and storing the position");
        out.flush();
      } finally {
        if (metrics != null) {
          metrics.stop();
        }
      }
    } finally {
      stop.close();
    }
    return 0;
  }

  @Command(
      name = "setup-sql",
      mixinStandardHelpOptions = true,
      description = {
        "Prints the SQL that gives the relay only what it needs: a role with LOGIN REPLICATION,"
            + " USAGE on the schema, SELECT on the outbox, its offsets table, and the publication"
            + " made by the table's owner. Review it and run it as the owner.",
        "The password comes from ORDINAL_RELAY_PASSWORD (never from the command line)."
      })
  static final class SetupSql implements Callable<Integer> {
    @Mixin Target target;

    @Option(
        names = "--role",
        defaultValue = "ordinal_relay",
        description = "The relay's role (default ${DEFAULT-VALUE}).")
    String role;

    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
      String password = System.getenv("ORDINAL_RELAY_PASSWORD");
      if (password == null || password.isBlank()) {
        spec.commandLine()
            .getErr()
            .println(
                "ordinal: set ORDINAL_RELAY_PASSWORD to the password the relay's role should have.");
        return 2;
      }
      DatabaseSettings placeholder =
          new DatabaseSettings("jdbc:postgresql://localhost/postgres", role, password);
      spec.commandLine()
          .getOut()
          .print(
              RelaySetup.sql(target.config(placeholder, "localhost:9092").build(), role, password));
      spec.commandLine().getOut().flush();
      return 0;
    }
  }
}

package dev.ordinal.cli;

import dev.ordinal.messaging.ConfigurationException;
import dev.ordinal.messaging.MessagingException;
import dev.ordinal.messaging.Preflight;
import dev.ordinal.messaging.kafka.KafkaClients;
import dev.ordinal.messaging.kafka.KafkaRefusals;
import dev.ordinal.messaging.slot.SlotReader;
import dev.ordinal.ops.lag.LagExporter;
import dev.ordinal.ops.lag.LagMetrics;
import dev.ordinal.ops.lag.LagOutput;
import dev.ordinal.ops.lag.LagQuery;
import dev.ordinal.ops.lag.LagReadException;
import dev.ordinal.ops.lag.LagReader;
import dev.ordinal.ops.lag.LagReaderConfig;
import dev.ordinal.ops.lag.LagReport;
import dev.ordinal.ops.lag.LagSampler;
import dev.ordinal.ops.lag.LagStatusConfig;
import dev.ordinal.ops.lag.LagStatusTracker;
import dev.ordinal.runtime.ManagementSettings;
import dev.ordinal.runtime.PortInUseException;
import dev.ordinal.runtime.ServerUnavailableException;
import java.io.PrintWriter;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Command(
    name = "lag",
    mixinStandardHelpOptions = true,
    description = {
      "Consumer lag you can trust: per group, topic and partition the committed offset, the"
          + " log-end offset, the lag in records (the figures of kafka-consumer-groups --describe)"
          + " and the lag in time, from the timestamp of the next record the group will read;"
          + " group state, members and totals; a status per partition and group (OK, UNKNOWN,"
          + " CATCHING_UP, FALLING_BEHIND, STALLED, STOPPED, REWOUND; rules in docs/DESIGN.md).",
      "",
      "Kafka: ORDINAL_KAFKA_BOOTSTRAP or kafka.bootstrap in the ORDINAL_CONFIG file (required);"
          + " its client properties (security, SASL, SSL) from --command-config or"
          + " ORDINAL_KAFKA_CONFIG."
          + " With ORDINAL_DB_URL / ORDINAL_DB_USER / ORDINAL_DB_PASSWORD, the logical replication"
          + " slots (the relay's) are shown beside: the WAL each keeps (from restart_lsn), the WAL"
          + " not confirmed, and wal_status.",
      "Statuses compare samples over --window, so a single read marks lagging partitions UNKNOWN:"
          + " use --watch to judge them.",
      "Exit status: 0 when read; 1 when Kafka did not answer; 2 on bad input or a missing ACL (one"
          + " sentence names the group or topic and the DESCRIBE it needs)."
    })
final class LagCommand implements Callable<Integer> {
  static final Duration DEFAULT_INTERVAL = Duration.ofSeconds(2);
  static final Duration MIN_INTERVAL = Duration.ofMillis(100);
  static final String CLEAR_SCREEN = "\033[H\033[2J";

  @Option(names = "--group", description = "Only this consumer group (default: every group).")
  String group;

  @Option(names = "--topic", description = "Only this topic's partitions (default: every topic).")
  String topic;

  @Option(
      names = "--json",
      description = "One JSON document (with --watch: one document per line and refresh).")
  boolean json;

  @Option(
      names = "--watch",
      description =
          "Refresh every --interval until Ctrl-C: in place on a terminal, a new block otherwise.")
  boolean watch;

  @Option(
      names = "--interval",
      converter = DurationConverter.class,
      description = "With --watch: time between refreshes (default 2s).")
  Duration interval;

  @Option(
      names = "--count",
      description = "With --watch: stop after this many refreshes (default: until Ctrl-C).")
  Integer count;

  @Option(
      names = "--window",
      converter = DurationConverter.class,
      defaultValue = "PT5M",
      description =
          "Status window: lag with no commit for this long is STOPPED (default ${DEFAULT-VALUE}).")
  Duration window;

  @Option(
      names = "--stall-after",
      converter = DurationConverter.class,
      defaultValue = "PT1M",
      description =
          "Lag with no commit for this long is STALLED; shorter than --window (default"
              + " ${DEFAULT-VALUE}).")
  Duration stallAfter;

  @Option(
      names = "--metrics-port",
      description =
          "With --watch: serve the figures as Prometheus metrics on GET /metrics, with GET"
              + " /health/live and /health/ready (ready while Kafka answers), on this port of"
              + " 127.0.0.1 (0 picks a free one).")
  Integer metricsPort;

  @Option(
      names = "--slot",
      description =
          "Only this replication slot (needs ORDINAL_DB_URL; default: every logical slot).")
  String slot;

  @CommandLine.Mixin CommandConfigOption kafkaConfig = new CommandConfigOption();

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  /** The environment the settings come from; visible for testing. */
  Map<String, String> env = System.getenv();

  /** How long Kafka has to answer the first time; visible for testing. */
  Duration kafkaTimeout = Preflight.DEFAULT_TIMEOUT;

  @Override
  public Integer call() throws Exception {
    String wrong = optionError();
    if (wrong != null) {
      return refuse(wrong);
    }
    PrintWriter err = spec.commandLine().getErr();
    ServerSettings servers = ServerSettings.from(env);
    if (!servers.hasKafka()) {
      return refuse(
          "lag reads the consumer groups of a running Kafka cluster: set "
              + ServerSettings.ENV_KAFKA_BOOTSTRAP
              + "=host:port (or kafka.bootstrap in the ORDINAL_CONFIG file).");
    }
    boolean withDb = servers.hasDatabase();
    if (slot != null && !withDb) {
      return refuse(
          "--slot reads the replication slots from PostgreSQL: set "
              + ServerSettings.ENV_DB_URL
              + " (and "
              + ServerSettings.ENV_DB_USER
              + " / "
              + ServerSettings.ENV_DB_PASSWORD
              + "), or drop --slot.");
    }
    LagQuery query;
    LagStatusConfig statusConfig;
    SlotReader slots;
    KafkaClients kafka;
    try {
      query = new LagQuery(group, topic);
      statusConfig = new LagStatusConfig(window, stallAfter);
      kafka = servers.kafka("lag", kafkaConfig.file);
      slots = withDb ? new SlotReader(servers.database("lag"), slot) : null;
      if (slot != null) {
        // the slot was asked for: a database that refuses (a certificate that does not verify,
        // a wrong password) is one sentence, not a lag report without it
        Preflight.checkPostgres(servers.database("lag"), false);
      }
      Preflight.checkKafka(kafka, kafkaTimeout);
    } catch (ConfigurationException | ServerUnavailableException e) {
      return refuse(e.getMessage());
    }

    LagMetrics metrics = metricsPort == null ? null : new LagMetrics();
    try (LagReader reader = new LagReader(LagReaderConfig.of(kafka), Clock.systemUTC())) {
      LagSampler sampler =
          new LagSampler(reader, query, new LagStatusTracker(statusConfig), metrics, slots);
      LagReport first;
      try {
        first = sampler.sampleOnce();
      } catch (ConfigurationException e) {
        return refuse(e.getMessage());
      } catch (LagReadException e) {
        Optional<ConfigurationException> missing = missingAcl(kafka, e);
        if (missing.isPresent()) {
          return refuse(missing.get().getMessage());
        }
        err.println("ordinal: " + e.getMessage());
        err.flush();
        return 1;
      }
      if (!watch) {
        print(first, false);
        return 0;
      }
      return watch(sampler, first, metrics, kafka);
    }
  }

  /** The first thing wrong with the options, as one sentence; null when they are fine. */
  String optionError() {
    if (!watch) {
      String lone =
          interval != null
              ? "--interval"
              : count != null ? "--count" : metricsPort != null ? "--metrics-port" : null;
      if (lone != null) {
        return lone + " only applies with --watch: add --watch or drop " + lone + ".";
      }
    }
    Duration every = interval == null ? DEFAULT_INTERVAL : interval;
    if (every.compareTo(MIN_INTERVAL) < 0) {
      return "--interval must be at least " + MIN_INTERVAL + ", not " + every + ".";
    }
    if (window.isNegative() || window.isZero()) {
      return "--window must be positive, not " + window + ".";
    }
    if (watch && window.compareTo(every) <= 0) {
      return "--window "
          + window
          + " must be longer than --interval "
          + every
          + ", or no two samples would ever be compared.";
    }
    if (stallAfter.isNegative() || stallAfter.isZero() || stallAfter.compareTo(window) >= 0) {
      return "--stall-after "
          + stallAfter
          + " must be positive and shorter than --window "
          + window
          + ".";
    }
    if (count != null && count < 1) {
      return "--count must be 1 or more, not " + count + ".";
    }
    if (metricsPort != null && (metricsPort < 0 || metricsPort > 65535)) {
      return "--metrics-port must be 0 to 65535, not " + metricsPort + ".";
    }
    if (group != null && group.isBlank()) {
      return "--group must name a consumer group, not be blank.";
    }
    if (topic != null && topic.isBlank()) {
      return "--topic must name a topic, not be blank.";
    }
    return null;
  }

  private int watch(LagSampler sampler, LagReport first, LagMetrics metrics, KafkaClients kafka)
      throws InterruptedException {
    Duration every = interval == null ? DEFAULT_INTERVAL : interval;
    boolean inPlace = !json && System.console() != null;
    PrintWriter err = spec.commandLine().getErr();
    CtrlC stop = new CtrlC("lag", Duration.ofSeconds(10));
    LagExporter server = null;
    try {
      if (metrics != null) {
        // the services' management server: /metrics (with the JVM's), /health/*, 127.0.0.1
        try {
          server = new LagExporter(ManagementSettings.local(metricsPort), kafka, metrics);
        } catch (PortInUseException e) {
          return refuse(
              "Port "
                  + metricsPort
                  + " is in use (--metrics-port): pick another, or 0 for a free one.");
        }
        metrics.update(first);
        server.start();
        err.println(
            "ordinal: lag metrics on http://127.0.0.1:" + server.managementPort() + "/metrics");
        err.flush();
      }
      LagReport report = first;
      int shown = 0;
      while (true) {
        if (report != null) {
          print(report, inPlace);
        }
        shown++;
        if ((count != null && shown >= count) || stop.await(every)) {
          return 0;
        }
        try {
          report = sampler.sampleOnce();
        } catch (MessagingException e) {
          // Kafka away, an ACL removed or the group deleted meanwhile: say so, keep watching
          err.println(
              "ordinal: " + missingAcl(kafka, e).map(Exception::getMessage).orElse(e.getMessage()));
          err.flush();
          report = null;
        }
      }
    } finally {
      if (server != null) {
        server.close();
      }
      stop.close();
    }
  }

  private void print(LagReport report, boolean clearFirst) {
    PrintWriter out = spec.commandLine().getOut();
    if (json) {
      out.println(LagOutput.json(report));
    } else {
      if (clearFirst) {
        out.print(CLEAR_SCREEN);
      } else if (watch) {
        out.println();
      }
      out.print(LagOutput.text(report));
    }
    out.flush();
  }

  /** The sentence for a missing ACL behind {@code e}: lag describes the groups and topics. */
  private static Optional<ConfigurationException> missingAcl(KafkaClients kafka, Exception e) {
    return KafkaRefusals.notAuthorized(kafka, e, resource -> "DESCRIBE");
  }

  private int refuse(String sentence) {
    PrintWriter err = spec.commandLine().getErr();
    err.println("ordinal: " + sentence);
    err.flush();
    return 2;
  }
}

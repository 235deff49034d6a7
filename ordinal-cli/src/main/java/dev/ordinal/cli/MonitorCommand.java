package dev.ordinal.cli;

import dev.ordinal.infra.StackConfig;
import dev.ordinal.infra.StackMode;
import dev.ordinal.messaging.Preflight;
import dev.ordinal.monitor.InvariantMonitor;
import dev.ordinal.monitor.MonitorConfig;
import io.javalin.Javalin;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.Callable;
import org.apache.kafka.streams.StreamsConfig;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Command(
    name = "monitor",
    mixinStandardHelpOptions = true,
    description = {
      "Runs the live invariant monitor (Kafka Streams) until Ctrl-C: every placed, not cancelled"
          + " order gets exactly one invoice within --deadline; per series no number is issued"
          + " twice and no gap stays open longer than --grace. Violations go to"
          + " <prefix>.alerts and to the metric ordinal_monitor_alerts_total{kind}.",
      "",
      "Kafka: ORDINAL_KAFKA_BOOTSTRAP (an existing cluster; the embedded one would be empty)."
    })
final class MonitorCommand implements Callable<Integer> {
  @Option(
      names = "--prefix",
      defaultValue = "ordinal",
      description = "Topic prefix (default ${DEFAULT-VALUE}).")
  String prefix;

  @Option(
      names = "--deadline",
      defaultValue = "PT5M",
      description = "Time an order may wait for its invoice (default ${DEFAULT-VALUE}).")
  Duration deadline;

  @Option(
      names = "--grace",
      defaultValue = "PT2M",
      description = "Time a gap in a series may stay open (default ${DEFAULT-VALUE}).")
  Duration grace;

  @Option(
      names = "--metrics-port",
      defaultValue = "9401",
      description = "Port of GET /metrics; -1 turns it off (default ${DEFAULT-VALUE}).")
  int metricsPort;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() throws Exception {
    CommandLine cli = spec.commandLine();
    StackConfig stack = StackConfig.fromEnvironment(System.getenv());
    if (stack.mode() != StackMode.EXTERNAL) {
      cli.getErr()
          .println(
              "ordinal: the monitor watches an existing cluster: set ORDINAL_KAFKA_BOOTSTRAP (and ORDINAL_DB_URL).");
      return 2;
    }
    MonitorConfig config;
    try {
      config =
          new MonitorConfig(
              prefix,
              deadline,
              grace,
              MonitorConfig.DEFAULT_PUNCTUATION_INTERVAL,
              MonitorConfig.DEFAULT_APPLICATION_ID);
    } catch (RuntimeException e) {
      throw new CommandLine.ParameterException(cli, e.getMessage());
    }
    Preflight.checkKafka(stack.kafkaBootstrap(), Preflight.DEFAULT_TIMEOUT);
    PrintWriter out = cli.getOut();
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    Javalin metrics = null;
    try (CtrlC stop = new CtrlC("monitor", Duration.ofSeconds(30));
        InvariantMonitor monitor =
            new InvariantMonitor(
                config,
                Map.of(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, stack.kafkaBootstrap()),
                registry)) {
      monitor.start();
      if (metricsPort >= 0) {
        metrics = MetricsEndpoint.start(registry, metricsPort);
      }
      out.printf(
          "monitor: reading %s, %s, %s; alerts to %s%s; Ctrl-C stops it.%n",
          config.orderTopic(),
          config.orderBulkTopic(),
          config.invoiceTopic(),
          config.alertsTopic(),
          metrics == null ? "" : "; metrics on http://localhost:" + metrics.port() + "/metrics");
      out.flush();
      stop.await();
    } finally {
      if (metrics != null) {
        metrics.stop();
      }
    }
    return 0;
  }
}

package dev.ordinal.lab.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ordinal.lab.devstack.StackConfig;
import dev.ordinal.ops.lag.LagMetrics;
import dev.ordinal.ops.lag.LagQuery;
import dev.ordinal.ops.lag.LagReader;
import dev.ordinal.ops.lag.LagReaderConfig;
import dev.ordinal.ops.lag.LagSampler;
import dev.ordinal.ops.lag.LagStatusConfig;
import dev.ordinal.ops.lag.LagStatusTracker;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.http.HttpClient;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every service, each in a JVM of its own as the demo runs them (the relay, two billing instances,
 * order-service) plus the invariant monitor, scraped on its management port: each exports the JVM's
 * meters, each that makes Kafka clients their metrics, each with a pool Hikari's; the relay shows
 * both figures of its slot, the WAL kept from {@code restart_lsn} at least the WAL not confirmed;
 * and no series anywhere has a label named {@code instance}, which Prometheus would rename to
 * {@code exported_instance}. Every metric and label that the alert rules and the Grafana dashboard
 * under {@code deploy/observability} use is exported by one of them (or by {@code lag --watch}'s
 * exporter), and every rule has the fields Prometheus requires ({@link ObservabilityFiles}).
 */
class ServiceMetricsIT {
  static final Pattern SLOT_WAL =
      Pattern.compile(
          "ordinal_slot_wal_bytes\\{position=\"(restart|confirmed)\",relay_instance=\"relay\","
              + "slot=\"ordinal_orders\"} (\\S+)");
  static final Pattern INSTANCE_LABEL = Pattern.compile("[{,]instance=\"");

  final HttpClient http = HttpClient.newHttpClient();

  @Test
  void everyServiceExportsJvmClientAndPoolMetricsAndTheRelayBothSlotFigures(@TempDir Path dir)
      throws Exception {
    StringWriter out = new StringWriter();
    try (DemoCluster cluster =
        new DemoCluster(
            StackConfig.embedded(dir.resolve("stack")),
            false,
            new SplittableRandom(7),
            new Console(new PrintWriter(out)))) {
      cluster.start();
      ServiceProcess monitor = cluster.child("monitor", List.of("monitor")).start();
      await()
          .atMost(Duration.ofSeconds(90))
          .pollInterval(Duration.ofMillis(500))
          .until(() -> monitor.ready() || !monitor.isAlive());
      assertThat(monitor.ready()).as(DemoCluster.lastLines(monitor.outputFile())).isTrue();
      int apiPort = cluster.orderApi().getPort();
      for (int i = 0; i < 5; i++) {
        assertThat(OrderServiceCommandIT.post(http, apiPort, "metrics-" + i).statusCode())
            .isEqualTo(201);
      }
      ServiceProcess relay = cluster.processes().get(0);
      // the slot monitor reads every 5 s: wait for a reading taken after the 5 orders went out
      Map<String, Double> slot =
          await()
              .atMost(Duration.ofSeconds(60))
              .pollInterval(Duration.ofMillis(500))
              .until(
                  () -> slotFigures(relay.metrics()),
                  s -> s.isPresent() && eventsRelayed(relay.metrics()) >= 5)
              .orElseThrow();
      System.out.printf(
          "relay slot ordinal_orders: restart %.0f bytes, confirmed %.0f bytes%n",
          slot.get("restart"), slot.get("confirmed"));
      assertThat(slot.get("restart")).isGreaterThanOrEqualTo(slot.get("confirmed"));
      // the Debezium engine's streaming MBean, read from the relay's platform MBean server
      assertThat(relay.metrics())
          .contains(
              "ordinal_relay_debezium_connected{relay_instance=\"relay\",slot=\"ordinal_orders\"}"
                  + " 1.0");
      assertThat(relay.metrics())
          .contains(
              "ordinal_slot_wal_status{relay_instance=\"relay\",slot=\"ordinal_orders\","
                  + "status=\"reserved\"} 1.0");

      List<ServiceProcess> all = new java.util.ArrayList<>(cluster.processes());
      all.add(monitor);
      for (ServiceProcess p : all) {
        String metrics = p.metrics();
        assertThat(metrics).as(p.name() + " answers /metrics").isNotNull();
        List<String> lines = metrics.lines().filter(l -> !l.startsWith("#")).toList();
        boolean kafka = lines.stream().anyMatch(ServiceMetricsIT::kafkaClient);
        boolean pool = lines.stream().anyMatch(l -> l.startsWith("hikaricp_connections"));
        System.out.printf(
            "%s: %d series, jvm_memory_used_bytes %s, kafka client %s, hikaricp %s%n",
            p.name(),
            lines.size(),
            lines.stream().anyMatch(l -> l.startsWith("jvm_memory_used_bytes")),
            kafka,
            pool);
        assertThat(lines).as(p.name()).anyMatch(l -> l.startsWith("jvm_memory_used_bytes{"));
        assertThat(lines).as(p.name()).anyMatch(l -> l.startsWith("process_uptime_seconds"));
        if (!p.name().equals("order-service")) { // it makes no Kafka client: it writes its outbox
          assertThat(kafka).as(p.name() + " exports its Kafka clients' metrics").isTrue();
        }
        if (p.name().startsWith("billing") || p.name().equals("order-service")) {
          assertThat(pool).as(p.name() + " exports its pool's metrics").isTrue();
        }
        assertThat(lines)
            .as(p.name() + ": no label named instance")
            .noneMatch(l -> INSTANCE_LABEL.matcher(l).find());
        assertThat(lines)
            .as(p.name() + ": latencies as histograms, no client-side quantiles")
            .noneMatch(l -> l.contains("quantile=\""));
      }
      assertThat(monitor.metrics()).contains("kafka_stream_");

      // every metric and label the alert rules and the dashboard use, on a running service or on
      // ./ordinal lag --watch's exporter (its metrics sampled here once, as the command does)
      Map<String, Set<String>> exported = new TreeMap<>();
      List<String> texts = new java.util.ArrayList<>();
      for (ServiceProcess p : all) {
        texts.add(p.metrics());
      }
      texts.add(lagExporterMetrics(cluster.kafka()));
      texts.forEach(
          t ->
              ObservabilityFiles.exported(t)
                  .forEach((k, v) -> exported.computeIfAbsent(k, x -> new TreeSet<>()).addAll(v)));
      List<ObservabilityFiles.Expression> used =
          new java.util.ArrayList<>(ObservabilityFiles.alertRules());
      int rules = used.size();
      used.addAll(ObservabilityFiles.dashboard());
      Set<String> metrics = new TreeSet<>();
      for (ObservabilityFiles.Expression e : used) {
        e.labelsByMetric()
            .forEach(
                (metric, labels) -> {
                  metrics.add(metric);
                  assertThat(exported)
                      .as(e.where() + ": " + metric + " is exported")
                      .containsKey(metric);
                  assertThat(exported.get(metric))
                      .as(e.where() + ": the labels of " + metric)
                      .containsAll(labels);
                });
      }
      System.out.printf(
          "observability: %d alert rules and %d dashboard queries use %d metrics, all exported:"
              + " %s%n",
          rules, used.size() - rules, metrics.size(), metrics);
    }
  }

  /** What {@code ./ordinal lag --watch}'s exporter serves after one sample of every group. */
  private static String lagExporterMetrics(String bootstrap) throws Exception {
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    LagMetrics metrics = new LagMetrics();
    metrics.bindTo(registry);
    try (LagReader reader = new LagReader(LagReaderConfig.of(bootstrap), Clock.systemUTC())) {
      new LagSampler(
              reader,
              LagQuery.all(),
              new LagStatusTracker(LagStatusConfig.defaults()),
              metrics,
              null)
          .sampleOnce();
    }
    return registry.scrape();
  }

  private static boolean kafkaClient(String line) {
    return line.startsWith("kafka_producer_") || line.startsWith("kafka_consumer_");
  }

  /** Both figures of the orders slot, once the relay has read them. */
  static Optional<Map<String, Double>> slotFigures(String metrics) {
    Map<String, Double> figures = new TreeMap<>();
    if (metrics != null) {
      Matcher m = SLOT_WAL.matcher(metrics);
      while (m.find()) {
        double v = Double.parseDouble(m.group(2));
        if (!Double.isNaN(v)) {
          figures.put(m.group(1), v);
        }
      }
    }
    return figures.size() == 2 ? Optional.of(figures) : Optional.empty();
  }

  private static double eventsRelayed(String metrics) {
    Matcher m =
        Pattern.compile(
                "ordinal_relay_events_total\\{relay_instance=\"relay\",slot=\"ordinal_orders\"} (\\S+)")
            .matcher(metrics == null ? "" : metrics);
    return m.find() ? Double.parseDouble(m.group(1)) : 0;
  }
}

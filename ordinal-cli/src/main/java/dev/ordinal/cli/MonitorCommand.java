package dev.ordinal.cli;

import dev.ordinal.messaging.kafka.KafkaClients;
import dev.ordinal.monitor.MonitorApp;
import dev.ordinal.monitor.MonitorConfig;
import dev.ordinal.monitor.MonitorSettings;
import picocli.CommandLine;
import picocli.CommandLine.Command;

@Command(
    name = "monitor",
    mixinStandardHelpOptions = true,
    modelTransformer = MonitorCommand.Options.class,
    description = {
      "Runs the live invariant monitor (Kafka Streams) until Ctrl-C: every placed, not cancelled"
          + " order gets exactly one invoice within --deadline; per series no number is issued"
          + " twice and no gap stays open longer than --grace. Violations go to"
          + " <prefix>.alerts and to the metric ordinal_monitor_alerts_total{kind} (GET /metrics on"
          + " the management port, beside GET /health/ready).",
      "",
      "Kafka: ORDINAL_KAFKA_BOOTSTRAP (an existing cluster; the embedded one would be empty) and"
          + " its client properties file ORDINAL_KAFKA_CONFIG (or kafka.bootstrap, kafka.config in"
          + " the ORDINAL_CONFIG file)."
    })
final class MonitorCommand extends ServiceCommand {
  /** The options: {@link MonitorSettings#ALL}. */
  static final class Options extends SettingOptions {
    Options() {
      super(MonitorSettings.ALL);
    }
  }

  @Override
  public Integer call() throws Exception {
    CommandLine cli = spec.commandLine();
    KafkaClients kafka = ServerSettings.from(env).kafka("monitor");
    MonitorSettings settings = checked(() -> MonitorSettings.builder(kafka).with(values()).build());
    MonitorConfig config = settings.monitor();
    return Serve.untilStopped(
        cli,
        () -> new MonitorApp(settings),
        () ->
            String.format(
                "monitor: reading %s, %s, %s; alerts to %s",
                config.orderTopic(),
                config.orderBulkTopic(),
                config.invoiceTopic(),
                config.alertsTopic()));
  }
}

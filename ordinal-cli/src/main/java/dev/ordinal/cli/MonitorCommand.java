package dev.ordinal.cli;

import dev.ordinal.monitor.MonitorApp;
import dev.ordinal.monitor.MonitorConfig;
import dev.ordinal.monitor.MonitorSettings;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

@Command(
    name = "monitor",
    mixinStandardHelpOptions = true,
    description = {
      "Runs the live invariant monitor (Kafka Streams) until Ctrl-C: every placed, not cancelled"
          + " order gets exactly one invoice within --deadline; per series no number is issued"
          + " twice and no gap stays open longer than --grace. Violations go to"
          + " <prefix>.alerts and to the metric ordinal_monitor_alerts_total{kind} (GET /metrics on"
          + " the management port, beside GET /health/ready).",
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
      converter = DurationConverter.class,
      names = "--deadline",
      defaultValue = "PT5M",
      description = "Time an order may wait for its invoice (default ${DEFAULT-VALUE}).")
  Duration deadline;

  @Option(
      converter = DurationConverter.class,
      names = "--grace",
      defaultValue = "PT2M",
      description = "Time a gap in a series may stay open (default ${DEFAULT-VALUE}).")
  Duration grace;

  @Mixin Management management = new Management(MonitorSettings.DEFAULT_MANAGEMENT_PORT);

  // visible for testing
  Map<String, String> env = System.getenv();

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() throws Exception {
    CommandLine cli = spec.commandLine();
    String bootstrap = ServerSettings.from(env).kafka("monitor");
    MonitorSettings settings;
    try {
      settings =
          new MonitorSettings(
              bootstrap,
              new MonitorConfig(
                  prefix,
                  deadline,
                  grace,
                  MonitorConfig.DEFAULT_PUNCTUATION_INTERVAL,
                  MonitorConfig.DEFAULT_APPLICATION_ID),
              null,
              management.settings(spec));
    } catch (RuntimeException e) {
      throw new CommandLine.ParameterException(cli, e.getMessage());
    }
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

package dev.ordinal.cli;

import dev.ordinal.console.ConsoleServer;
import dev.ordinal.console.ConsoleSettings;
import picocli.CommandLine.Command;

@Command(
    name = "console",
    mixinStandardHelpOptions = true,
    modelTransformer = ConsoleCommand.Options.class,
    description = {
      "Serves one pipe at a glance until Ctrl-C: outboxes, replication slots, consumer groups,"
          + " dead letters by error, invoices, the gap audit, recent replays with their reports and"
          + " each --service's readiness, refreshed every 2 s, with the last hour plotted;"
          + " read-only unless --allow-actions (dead-letter re-drive and discard, dry run first);"
          + " tokens as the order API's with --auth jwt (docs/CONSOLE.md).",
      "Servers: ORDINAL_DB_URL (_USER, _PASSWORD), ORDINAL_KAFKA_BOOTSTRAP (ORDINAL_KAFKA_CONFIG)."
    })
final class ConsoleCommand extends ServiceCommand {
  /** The options: {@link ConsoleSettings#ALL}. */
  static final class Options extends SettingOptions {
    Options() {
      super(ConsoleSettings.ALL);
    }
  }

  @Override
  public Integer call() throws Exception {
    ServerSettings servers = ServerSettings.from(env).requireBoth("console");
    var db = servers.database("console");
    var kafka = servers.kafka("console");
    var settings = checked(() -> ConsoleSettings.builder(db, kafka).with(values()).build());
    try (CtrlC stop = new CtrlC("console", Serve.STOP_BOUND);
        ConsoleServer server = ConsoleServer.start(settings)) {
      spec.commandLine().getOut().println("console: " + server.url() + health(server));
      spec.commandLine().getOut().flush();
      stop.await();
    }
    return 0;
  }

  private static String health(ConsoleServer server) {
    int port = server.managementPort();
    return (port < 0 ? "" : " ; health and metrics: port " + port) + " ; Ctrl-C stops it.";
  }
}

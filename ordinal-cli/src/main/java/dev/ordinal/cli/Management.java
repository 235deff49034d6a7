package dev.ordinal.cli;

import dev.ordinal.runtime.ManagementSettings;
import picocli.CommandLine;
import picocli.CommandLine.Option;

/** The management port options of every service command. */
final class Management {
  @Option(
      names = "--management-port",
      description =
          "Port of GET /health/live, GET /health/ready and GET /metrics; 0 picks a free one, -1"
              + " turns them off (default ${DEFAULT-VALUE}).")
  int port;

  @Option(
      names = "--management-host",
      description =
          "Interface the management port listens on (default ${DEFAULT-VALUE}: this machine"
              + " only; 0.0.0.0 for every interface).")
  String host = ManagementSettings.DEFAULT_HOST;

  Management() {}

  Management(int defaultPort) {
    this.port = defaultPort;
  }

  ManagementSettings settings(CommandLine.Model.CommandSpec spec) {
    if (port < -1 || port > 65535) {
      throw new CommandLine.ParameterException(
          spec.commandLine(), "--management-port must be -1 to 65535, not " + port);
    }
    return new ManagementSettings(host, port);
  }
}

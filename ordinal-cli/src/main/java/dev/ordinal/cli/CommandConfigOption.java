package dev.ordinal.cli;

import java.nio.file.Path;
import picocli.CommandLine.Option;

/**
 * {@code --command-config FILE}, the option of every operator command that talks to Kafka: a file
 * of Kafka client properties, as Kafka's own tools take it. It wins over {@code
 * ORDINAL_KAFKA_CONFIG} ({@link ServerSettings#kafka(String, Path)}).
 */
final class CommandConfigOption {
  @Option(
      names = ServerSettings.COMMAND_CONFIG,
      paramLabel = "FILE",
      description =
          "Kafka client properties for this command's Kafka clients (security.protocol, sasl.*,"
              + " ssl.*, config providers; the file Kafka's tools take); wins over"
              + " ORDINAL_KAFKA_CONFIG. A file that weakens acks=all, idempotence, read_committed,"
              + " manual commits or auto.offset.reset=earliest is refused.")
  Path file;
}

package dev.ordinal.lab.bench;

import dev.ordinal.lab.devstack.SecuredKafka;
import dev.ordinal.lab.devstack.Stack;
import dev.ordinal.lab.devstack.StackConfig;
import dev.ordinal.messaging.kafka.KafkaClients;
import dev.ordinal.testkit.tls.TestCertificates;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Consumer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code bench security}: the relay and billing on a SASL_SSL broker next to PLAINTEXT. */
@Command(
    name = "security",
    mixinStandardHelpOptions = true,
    description = {
      "What securing Kafka costs the relay and billing, measured against the same run on the"
          + " stack's PLAINTEXT broker: a second broker of the same build is started whose only"
          + " client listener is SASL_SSL (SCRAM-SHA-512 over TLS with a CA made for the run),"
          + " and in alternating rounds the CDC relay drains a backlog of outbox rows and"
          + " billing's inbox consumer applies pre-produced OrderPlaced records on each. Prints"
          + " both rates and SASL_SSL / PLAINTEXT. About two and a half minutes; --quick about"
          + " forty seconds."
    })
final class SecurityBenchCommand extends ScenarioCommand<SecurityBench.Settings> {
  @Option(names = "--quick", description = "One round with smaller backlogs; explicit options win.")
  boolean quick;

  @Option(
      names = "--rounds",
      description = "Rounds, each measuring both brokers; medians are reported (default 3).")
  Integer rounds;

  @Mixin MarkdownOut.Table out;

  SecurityBenchCommand() {
    super(
        SecurityBench.Settings.DEFAULT,
        SecurityBench.Settings.QUICK,
        SecurityBenchCommand::section);
  }

  @Override
  SecurityBench.Settings settings() {
    SecurityBench.Settings d = defaults();
    return new SecurityBench.Settings(
        d.relayEvents(),
        d.rowsPerTx(),
        d.messages(),
        d.warmupMessages(),
        d.concurrency(),
        pick("--rounds", rounds, d.rounds(), 1, 20));
  }

  static List<String> section(Stack stack, SecurityBench.Settings s, Consumer<String> p)
      throws Exception {
    // beside the bench's stack, its content replaced at each run
    Path dir =
        StackConfig.fromEnvironment(System.getenv())
            .dataDir()
            .resolveSibling("bench-secured-kafka");
    p.accept("starting a second broker whose only client listener is SASL_SSL ...");
    try (SecuredKafka secured =
        SecuredKafka.start(
            dir.resolve("broker"), TestCertificates.create(dir.resolve("ca")).forKafka())) {
      Map<String, String> props = new TreeMap<>();
      secured.superUserProperties().forEach((k, v) -> props.put(k, String.valueOf(v)));
      SecurityBench.Report report =
          SecurityBench.run(
              BenchRun.database(stack),
              KafkaClients.of(stack.kafkaBootstrap()),
              "the stack's broker, PLAINTEXT",
              KafkaClients.of(secured.bootstrapServers(), props, "the bench's secured broker"),
              "a second broker, SASL_SSL (SCRAM-SHA-512; TLS with a CA made for the run)",
              s,
              p);
      return SecurityBench.markdown(report, BenchRun.now());
    }
  }
}

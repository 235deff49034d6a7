package dev.ordinal.infra.internal;

import dev.ordinal.infra.StackException;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;
import kafka.server.KafkaConfig;
import kafka.server.KafkaRaftServer;
import kafka.tools.StorageTool;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.utils.Time;

/**
 * A real single-node Kafka broker in KRaft mode (broker and controller in one process), running in
 * this JVM. Storage is formatted with Kafka's own {@code StorageTool}, as {@code kafka-storage.sh
 * format} would.
 */
public final class EmbeddedKafkaBroker implements AutoCloseable {
  private final KafkaRaftServer server;
  private final int port;

  private EmbeddedKafkaBroker(KafkaRaftServer server, int port) {
    this.server = server;
    this.port = port;
  }

  public static EmbeddedKafkaBroker start(Path dataDir, boolean keepData) {
    int[] ports = FreePorts.pick(2);
    int brokerPort = ports[0];
    int controllerPort = ports[1];
    Path logDir = dataDir.resolve("logs");
    try {
      if (!keepData) {
        Directories.deleteRecursively(dataDir);
      }
      Files.createDirectories(logDir);
      Properties props = new Properties();
      props.put("process.roles", "broker,controller");
      props.put("node.id", "1");
      props.put("controller.quorum.voters", "1@localhost:" + controllerPort);
      props.put(
          "listeners",
          "PLAINTEXT://localhost:" + brokerPort + ",CONTROLLER://localhost:" + controllerPort);
      props.put("advertised.listeners", "PLAINTEXT://localhost:" + brokerPort);
      props.put("controller.listener.names", "CONTROLLER");
      props.put("inter.broker.listener.name", "PLAINTEXT");
      props.put("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT");
      props.put("log.dirs", logDir.toString());
      props.put("num.partitions", "3");
      props.put("auto.create.topics.enable", "true");
      props.put("offsets.topic.replication.factor", "1");
      props.put("offsets.topic.num.partitions", "10");
      props.put("transaction.state.log.replication.factor", "1");
      props.put("transaction.state.log.min.isr", "1");
      props.put("transaction.state.log.num.partitions", "5");
      props.put("share.coordinator.state.topic.replication.factor", "1");
      props.put("share.coordinator.state.topic.min.isr", "1");
      props.put("group.initial.rebalance.delay.ms", "0");
      props.put("log.cleaner.dedupe.buffer.size", "2097152");
      props.put("log.flush.interval.messages", "9223372036854775807");

      boolean formatted = Files.exists(logDir.resolve("meta.properties"));
      if (!formatted) {
        Path serverProperties = dataDir.resolve("server.properties");
        try (OutputStream out = Files.newOutputStream(serverProperties)) {
          props.store(out, "written by ordinal infra");
        }
        ByteArrayOutputStream output = new ByteArrayOutputStream();
        int rc =
            StorageTool.execute(
                new String[] {
                  "format", "-t", Uuid.randomUuid().toString(), "-c", serverProperties.toString()
                },
                new PrintStream(output, true, StandardCharsets.UTF_8));
        if (rc != 0) {
          throw new StackException(
              "Formatting the Kafka storage in "
                  + logDir
                  + " failed: "
                  + output.toString(StandardCharsets.UTF_8).trim());
        }
      }
      KafkaRaftServer server = new KafkaRaftServer(KafkaConfig.fromProps(props), Time.SYSTEM);
      server.startup();
      return new EmbeddedKafkaBroker(server, brokerPort);
    } catch (IOException e) {
      throw new StackException("The embedded Kafka broker did not start: " + e.getMessage(), e);
    }
  }

  public String bootstrapServers() {
    return "localhost:" + port;
  }

  @Override
  public void close() {
    server.shutdown();
    server.awaitShutdown();
  }
}

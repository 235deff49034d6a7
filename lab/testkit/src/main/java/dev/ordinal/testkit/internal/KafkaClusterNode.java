package dev.ordinal.testkit.internal;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import kafka.server.KafkaConfig;
import kafka.server.KafkaRaftServer;
import kafka.tools.StorageTool;
import org.apache.kafka.common.utils.Time;

/**
 * One node (broker and controller) of a {@code KafkaCluster}, in a JVM of its own so that a test
 * can kill it ({@code kill -9}) or freeze it ({@code kill -STOP}) like a broker process. Formats
 * its storage on the first start, with the cluster's id, as {@code kafka-storage.sh format} would,
 * and keeps it for later starts. Prints {@value #READY} when its server has started.
 *
 * <p>Arguments: data directory, node id, client port, controller port, the quorum's voters ({@code
 * 1@localhost:p1,2@localhost:p2,...}), the cluster id, the nodes' count.
 */
public final class KafkaClusterNode {
  /** Printed on standard output once the node's server has started. */
  public static final String READY = "kafka-cluster-node-ready";

  private KafkaClusterNode() {}

  public static void main(String[] args) throws Exception {
    Path dataDir = Path.of(args[0]);
    int nodeId = Integer.parseInt(args[1]);
    int clientPort = Integer.parseInt(args[2]);
    int controllerPort = Integer.parseInt(args[3]);
    String voters = args[4];
    String clusterId = args[5];
    String replicas = args[6];
    Path logDir = dataDir.resolve("logs");
    Files.createDirectories(logDir);
    // a frozen or killed node is fenced, and its partitions led by another replica, within 6 s
    String[][] settings = {
      {"process.roles", "broker,controller"},
      {"node.id", Integer.toString(nodeId)},
      {"controller.quorum.voters", voters},
      {
        "listeners",
        "PLAINTEXT://localhost:" + clientPort + ",CONTROLLER://localhost:" + controllerPort
      },
      {"advertised.listeners", "PLAINTEXT://localhost:" + clientPort},
      {"controller.listener.names", "CONTROLLER"},
      {"inter.broker.listener.name", "PLAINTEXT"},
      {"listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT"},
      {"log.dirs", logDir.toString()},
      {"num.partitions", "3"},
      {"default.replication.factor", replicas},
      {"auto.create.topics.enable", "false"},
      {"offsets.topic.replication.factor", replicas},
      {"offsets.topic.num.partitions", "5"},
      {"transaction.state.log.replication.factor", replicas},
      {"transaction.state.log.min.isr", "1"},
      {"transaction.state.log.num.partitions", "3"},
      {"share.coordinator.state.topic.replication.factor", replicas},
      {"share.coordinator.state.topic.min.isr", "1"},
      {"group.initial.rebalance.delay.ms", "0"},
      {"broker.session.timeout.ms", "6000"},
      {"broker.heartbeat.interval.ms", "1000"},
      {"replica.lag.time.max.ms", "6000"},
      {"log.cleaner.dedupe.buffer.size", "2097152"},
    };
    Properties p = new Properties();
    for (String[] setting : settings) {
      p.put(setting[0], setting[1]);
    }
    if (!Files.exists(logDir.resolve("meta.properties"))) {
      Path serverProperties = dataDir.resolve("server.properties");
      try (OutputStream out = Files.newOutputStream(serverProperties)) {
        p.store(out, "a node of a test's Kafka cluster");
      }
      ByteArrayOutputStream output = new ByteArrayOutputStream();
      int rc =
          StorageTool.execute(
              new String[] {"format", "-t", clusterId, "-c", serverProperties.toString()},
              new PrintStream(output, true, StandardCharsets.UTF_8));
      if (rc != 0) {
        System.err.println(
            "Formatting " + logDir + " failed: " + output.toString(StandardCharsets.UTF_8));
        System.exit(2);
      }
    }
    KafkaRaftServer server = new KafkaRaftServer(KafkaConfig.fromProps(p), Time.SYSTEM);
    server.startup();
    System.out.println(READY);
    System.out.flush();
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  server.shutdown();
                  server.awaitShutdown();
                  stopped.countDown();
                }));
    stopped.await();
  }
}

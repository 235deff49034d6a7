package dev.ordinal.testkit;

import dev.ordinal.lab.devstack.StackException;
import dev.ordinal.lab.devstack.internal.FreePorts;
import dev.ordinal.testkit.internal.KafkaClusterNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.Uuid;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A Kafka cluster of several nodes (each a broker and a KRaft controller), each node a JVM of its
 * own on loopback ports ({@link KafkaClusterNode}), for tests of what replication does when a
 * broker dies or stalls: {@link #kill} is {@code kill -9}, {@link #freeze} and {@link #thaw} are
 * {@code kill -STOP} and {@code kill -CONT}, {@link #restart} starts a killed node again on its
 * ports and storage. Topics are made with the cluster's replication factor (the node count) unless
 * said otherwise; a frozen or killed node is fenced, and its partitions led by another in-sync
 * replica, within about 6 s ({@code broker.session.timeout.ms}).
 *
 * <p>Each node writes its output to {@code <dir>/node-<id>.log}. {@link #close} kills every node.
 */
public final class KafkaCluster implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(KafkaCluster.class);
  private static final Duration READY_WAIT = Duration.ofSeconds(90);
  private static final Duration POLL = Duration.ofMillis(200);

  private final Path dir;
  private final int[] clientPorts;
  private final int[] controllerPorts;
  private final String clusterId = Uuid.randomUuid().toString();
  private final Process[] nodes;

  private KafkaCluster(Path dir, int count) {
    this.dir = dir;
    int[] ports = FreePorts.pick(2 * count);
    this.clientPorts = IntStream.range(0, count).map(i -> ports[i]).toArray();
    this.controllerPorts = IntStream.range(0, count).map(i -> ports[count + i]).toArray();
    this.nodes = new Process[count];
  }

  /**
   * Starts {@code count} nodes in {@code dir} and returns when every one is listed by the cluster.
   *
   * @throws StackException when a node does not start within 90 s; every node is killed then
   */
  public static KafkaCluster start(Path dir, int count) {
    KafkaCluster cluster = new KafkaCluster(dir, count);
    try {
      for (int id = 1; id <= count; id++) {
        cluster.launch(id);
      }
      cluster.awaitNodes(count);
      log.info("Kafka cluster of {} nodes on {}", count, cluster.bootstrapServers());
      return cluster;
    } catch (RuntimeException e) {
      cluster.close();
      throw e;
    }
  }

  /** Every node's client address, comma-separated. */
  public String bootstrapServers() {
    return IntStream.of(clientPorts)
        .mapToObj(p -> "localhost:" + p)
        .collect(Collectors.joining(","));
  }

  /** The id of the node that leads {@code partition} of {@code topic} now. */
  public int leaderOf(String topic, int partition) {
    return partitionInfo(topic, partition).leader().id();
  }

  /** The replication factor of {@code topic} (its first partition's replicas). */
  public int replicationFactor(String topic) {
    return partitionInfo(topic, 0).replicas().size();
  }

  /** Whether every partition of {@code topic} has all its replicas in sync. */
  public boolean fullyInSync(String topic) {
    try (Admin admin = admin()) {
      TopicDescription d =
          admin.describeTopics(List.of(topic)).allTopicNames().get(10, TimeUnit.SECONDS).get(topic);
      return d.partitions().stream().allMatch(p -> p.isr().size() == p.replicas().size());
    } catch (ExecutionException | TimeoutException e) {
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new StackException("Interrupted while describing " + topic, e);
    }
  }

  /** {@code kill -9} of node {@code id}; returns when its process has ended. */
  public void kill(int id) {
    Process p = node(id);
    p.destroyForcibly();
    try {
      if (!p.waitFor(30, TimeUnit.SECONDS)) {
        throw new StackException("Kafka node " + id + " did not end 30 s after kill -9.");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new StackException("Interrupted while killing Kafka node " + id, e);
    }
    log.info("Kafka node {} killed", id);
  }

  /** Starts killed node {@code id} again on its ports and storage; returns when it is listed. */
  public void restart(int id) {
    if (node(id).isAlive()) {
      throw new StackException("Kafka node " + id + " is running; kill it first.");
    }
    launch(id);
    awaitNodes(nodes.length);
  }

  /** {@code kill -STOP}: node {@code id} stops answering, its connections stay open. */
  public void freeze(int id) {
    signal(id, "STOP");
  }

  /** {@code kill -CONT} of a frozen node. */
  public void thaw(int id) {
    signal(id, "CONT");
  }

  @Override
  public void close() {
    for (int i = 0; i < nodes.length; i++) {
      Process p = nodes[i];
      if (p != null && p.isAlive()) {
        p.destroyForcibly(); // a frozen process ends on SIGKILL too
        try {
          p.waitFor(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return;
        }
      }
    }
  }

  private void launch(int id) {
    String voters =
        IntStream.rangeClosed(1, nodes.length)
            .mapToObj(n -> n + "@localhost:" + controllerPorts[n - 1])
            .collect(Collectors.joining(","));
    Path nodeDir = dir.resolve("node-" + id);
    Path output = dir.resolve("node-" + id + ".log");
    try {
      Files.createDirectories(nodeDir);
      nodes[id - 1] =
          new ProcessBuilder(
                  JavaCommand.of(
                      List.of("-Xmx320m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1"),
                      KafkaClusterNode.class,
                      nodeDir.toString(),
                      Integer.toString(id),
                      Integer.toString(clientPorts[id - 1]),
                      Integer.toString(controllerPorts[id - 1]),
                      voters,
                      clusterId,
                      Integer.toString(nodes.length)))
              .redirectErrorStream(true)
              .redirectOutput(ProcessBuilder.Redirect.appendTo(output.toFile()))
              .start();
    } catch (IOException e) {
      throw new StackException("Kafka node " + id + " did not start: " + e.getMessage(), e);
    }
  }

  private void awaitNodes(int count) {
    long deadline = System.nanoTime() + READY_WAIT.toNanos();
    String last = "no answer";
    try (Admin admin = admin()) {
      while (System.nanoTime() < deadline) {
        for (int i = 0; i < nodes.length; i++) {
          if (nodes[i] != null && !nodes[i].isAlive() && nodes[i].exitValue() != 137) {
            throw new StackException(
                "Kafka node "
                    + (i + 1)
                    + " exited with status "
                    + nodes[i].exitValue()
                    + "; see "
                    + dir.resolve("node-" + (i + 1) + ".log"));
          }
        }
        try {
          Set<Integer> listed =
              admin.describeCluster().nodes().get(5, TimeUnit.SECONDS).stream()
                  .map(Node::id)
                  .collect(Collectors.toSet());
          if (listed.size() >= count) {
            return;
          }
          last = "nodes listed: " + listed;
        } catch (ExecutionException | TimeoutException e) {
          last = e.getMessage();
        }
        Thread.sleep(POLL.toMillis());
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new StackException("Interrupted while waiting for the Kafka cluster.", e);
    }
    throw new StackException(
        "The Kafka cluster on "
            + bootstrapServers()
            + " did not list "
            + count
            + " nodes within "
            + READY_WAIT.toSeconds()
            + " s: "
            + last
            + " (node logs in "
            + dir
            + ")");
  }

  private TopicPartitionInfo partitionInfo(String topic, int partition) {
    try (Admin admin = admin()) {
      return admin
          .describeTopics(List.of(topic))
          .allTopicNames()
          .get(10, TimeUnit.SECONDS)
          .get(topic)
          .partitions()
          .get(partition);
    } catch (ExecutionException | TimeoutException e) {
      throw new StackException("Describing " + topic + " failed: " + e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new StackException("Interrupted while describing " + topic, e);
    }
  }

  private void signal(int id, String signal) {
    try {
      Process kill =
          new ProcessBuilder("kill", "-" + signal, Long.toString(node(id).pid()))
              .redirectErrorStream(true)
              .start();
      if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
        throw new StackException("kill -" + signal + " of Kafka node " + id + " failed.");
      }
    } catch (IOException e) {
      throw new StackException("kill -" + signal + " of Kafka node " + id + ": " + e, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new StackException("Interrupted while signalling Kafka node " + id, e);
    }
    log.info("Kafka node {}: kill -{}", id, signal);
  }

  private Process node(int id) {
    if (id < 1 || id > nodes.length || nodes[id - 1] == null) {
      throw new StackException("There is no Kafka node " + id + " in this cluster.");
    }
    return nodes[id - 1];
  }

  private Admin admin() {
    return Admin.create(
        Map.of(
            AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
            bootstrapServers(),
            AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG,
            5000,
            AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG,
            8000,
            AdminClientConfig.CLIENT_ID_CONFIG,
            "ordinal-kafka-cluster"));
  }
}

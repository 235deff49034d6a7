package dev.ordinal.lab.devstack.internal;

import dev.ordinal.lab.devstack.SecuredKafka.ServerCertificate;
import dev.ordinal.lab.devstack.ServerControl.Shutdown;
import dev.ordinal.lab.devstack.StackException;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import kafka.server.KafkaConfig;
import kafka.server.KafkaRaftServer;
import kafka.tools.StorageTool;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ListTopicsOptions;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.storage.internals.checkpoint.CleanShutdownFileHandler;

/**
 * A real single-node Kafka broker in KRaft mode (broker and controller in one process), running in
 * this JVM. Storage is formatted with Kafka's own {@code StorageTool}, as {@code kafka-storage.sh
 * format} would.
 *
 * <p>Fault tests stop and start it in between ({@link #stop}, {@link #start}): a start builds a new
 * {@link KafkaRaftServer} from the same properties (ports, log directory, node id; the cluster id
 * is in the formatted {@code meta.properties}), as a restarted broker process would read its {@code
 * server.properties}. Kafka's own shutdown unregisters the server's metrics and JMX beans and ends
 * its threads, so a later start registers them afresh.
 */
public final class EmbeddedKafkaBroker implements AutoCloseable {
  private static final int NODE_ID = 1;

  /** How long a started broker may take to list itself and lead every partition. */
  private static final Duration READY_WAIT = Duration.ofSeconds(60);

  /** How long a stopped broker may keep its ports. */
  private static final Duration PORT_WAIT = Duration.ofSeconds(15);

  /** The SASL mechanism of a secured broker's client listener. */
  public static final String SCRAM = "SCRAM-SHA-512";

  /** The security protocol of a secured broker's client listener. */
  public static final String SASL_SSL = "SASL_SSL";

  private final Properties props;
  private final Path logDir;
  private final int brokerPort;
  private final int controllerPort;
  private final Map<String, Object> adminSecurity;
  private KafkaRaftServer server;
  private boolean closed;

  private EmbeddedKafkaBroker(
      Properties props,
      Path logDir,
      int brokerPort,
      int controllerPort,
      Map<String, Object> adminSecurity) {
    this.props = props;
    this.logDir = logDir;
    this.brokerPort = brokerPort;
    this.controllerPort = controllerPort;
    this.adminSecurity = adminSecurity;
  }

  public static EmbeddedKafkaBroker start(Path dataDir, boolean keepData) {
    return start(dataDir, keepData, null, null, null);
  }

  /**
   * A broker whose only client listener is SASL_SSL with {@value #SCRAM}, presenting {@code
   * certificate}'s key store, authorizing with Kafka's {@code StandardAuthorizer} and no ACL
   * allowing everyone: {@code superUser} (created with the storage, as {@code kafka-storage format
   * --add-scram} does) may do everything, any other user only what ACLs grant it, and a client
   * without TLS and SASL gets no answer.
   */
  public static EmbeddedKafkaBroker startSecured(
      Path dataDir, String superUser, String superPassword, ServerCertificate certificate) {
    return start(dataDir, false, superUser, superPassword, certificate);
  }

  /**
   * The client properties of {@code user} on a secured broker's listener, trusting the CA whose
   * certificate (PEM) is {@code caCertificate}.
   */
  public static Map<String, Object> saslClientProperties(
      String user, String password, Path caCertificate) {
    return Map.of(
        "security.protocol",
        SASL_SSL,
        "ssl.truststore.type",
        "PEM",
        "ssl.truststore.location",
        caCertificate.toAbsolutePath().toString(),
        "sasl.mechanism",
        SCRAM,
        "sasl.jaas.config",
        jaas(user, password));
  }

  private static String jaas(String user, String password) {
    return "org.apache.kafka.common.security.scram.ScramLoginModule required username=\""
        + user
        + "\" password=\""
        + password
        + "\";";
  }

  private static EmbeddedKafkaBroker start(
      Path dataDir,
      boolean keepData,
      String superUser,
      String superPassword,
      ServerCertificate certificate) {
    boolean secured = superUser != null;
    int[] ports = FreePorts.pick(2);
    int brokerPort = ports[0];
    int controllerPort = ports[1];
    Path logDir = dataDir.resolve("logs");
    Properties props = new Properties();
    try {
      if (!keepData) {
        Directories.deleteRecursively(dataDir);
      }
      Files.createDirectories(logDir);
      props.put("process.roles", "broker,controller");
      props.put("node.id", Integer.toString(NODE_ID));
      props.put("controller.quorum.voters", NODE_ID + "@localhost:" + controllerPort);
      String listener = secured ? SASL_SSL : "PLAINTEXT";
      props.put(
          "listeners",
          listener + "://localhost:" + brokerPort + ",CONTROLLER://localhost:" + controllerPort);
      props.put("advertised.listeners", listener + "://localhost:" + brokerPort);
      props.put("controller.listener.names", "CONTROLLER");
      props.put("inter.broker.listener.name", listener);
      props.put(
          "listener.security.protocol.map", listener + ":" + listener + ",CONTROLLER:PLAINTEXT");
      if (secured) {
        props.put("sasl.enabled.mechanisms", SCRAM);
        props.put("sasl.mechanism.inter.broker.protocol", SCRAM);
        props.put(
            "listener.name.sasl_ssl." + SCRAM.toLowerCase() + ".sasl.jaas.config",
            jaas(superUser, superPassword));
        props.put("ssl.keystore.type", "PKCS12");
        props.put("ssl.keystore.location", certificate.keyStore().toAbsolutePath().toString());
        props.put("ssl.keystore.password", certificate.password());
        props.put("ssl.key.password", certificate.password());
        // the broker's own connections to its listener (inter-broker) trust the same CA
        props.put("ssl.truststore.type", "PEM");
        props.put(
            "ssl.truststore.location", certificate.caCertificate().toAbsolutePath().toString());
        props.put(
            "authorizer.class.name", "org.apache.kafka.metadata.authorizer.StandardAuthorizer");
        // the controller listener is the node talking to itself (PLAINTEXT, so ANONYMOUS)
        props.put("super.users", "User:" + superUser + ";User:ANONYMOUS");
        props.put("allow.everyone.if.no.acl.found", "false");
      }
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
        List<String> format =
            new ArrayList<>(
                List.of(
                    "format",
                    "-t",
                    Uuid.randomUuid().toString(),
                    "-c",
                    serverProperties.toString()));
        if (secured) {
          format.add("--add-scram");
          format.add(SCRAM + "=[name=" + superUser + ",password=" + superPassword + "]");
        }
        int rc =
            StorageTool.execute(
                format.toArray(new String[0]),
                new PrintStream(output, true, StandardCharsets.UTF_8));
        if (rc != 0) {
          throw new StackException(
              "Formatting the Kafka storage in "
                  + logDir
                  + " failed: "
                  + output.toString(StandardCharsets.UTF_8).trim());
        }
      }
    } catch (IOException e) {
      throw new StackException("The embedded Kafka broker did not start: " + e.getMessage(), e);
    }
    EmbeddedKafkaBroker broker =
        new EmbeddedKafkaBroker(
            props,
            logDir,
            brokerPort,
            controllerPort,
            secured
                ? saslClientProperties(superUser, superPassword, certificate.caCertificate())
                : Map.of());
    try {
      broker.startServer();
    } catch (RuntimeException e) {
      broker.close(); // started but not ready
      throw e;
    }
    return broker;
  }

  public String bootstrapServers() {
    return "localhost:" + brokerPort;
  }

  /**
   * Shuts the broker down; returns when its broker and controller ports refuse connections. {@link
   * Shutdown#CRASH} then deletes the clean-shutdown marker in the log directory, so that the next
   * start recovers the logs as after a crash.
   */
  public synchronized void stop(Shutdown how) {
    requireOpen();
    if (server == null) {
      throw new StackException("The embedded Kafka broker is already stopped; start it first.");
    }
    KafkaRaftServer stopping = server;
    server = null;
    stopping.shutdown();
    stopping.awaitShutdown();
    if (how == Shutdown.CRASH) {
      try {
        Files.deleteIfExists(logDir.resolve(CleanShutdownFileHandler.CLEAN_SHUTDOWN_FILE_NAME));
      } catch (IOException e) {
        throw new StackException(
            "Cannot delete the clean-shutdown marker in " + logDir + ": " + e.getMessage(), e);
      }
    }
    awaitPortsClosed();
  }

  /**
   * Starts the stopped broker on its former ports and log directory; returns when it lists itself
   * and every partition has a leader.
   */
  public synchronized void start() {
    requireOpen();
    if (server != null) {
      throw new StackException(
          "The embedded Kafka broker is already running on "
              + bootstrapServers()
              + "; stop it first.");
    }
    startServer();
  }

  /** Whether the broker answers a metadata request within a few seconds. */
  public boolean isUp() {
    if (!Ports.accepting(brokerPort)) {
      return false;
    }
    try (Admin admin = admin()) {
      return admin.describeCluster().nodes().get(5, TimeUnit.SECONDS).stream()
          .anyMatch(n -> n.id() == NODE_ID);
    } catch (ExecutionException | TimeoutException e) {
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    if (server != null) {
      KafkaRaftServer stopping = server;
      server = null;
      stopping.shutdown();
      stopping.awaitShutdown();
    }
  }

  private void requireOpen() {
    if (closed) {
      throw new StackException("The embedded Kafka broker is closed; start a new stack instead.");
    }
  }

  private void startServer() {
    KafkaRaftServer starting = new KafkaRaftServer(KafkaConfig.fromProps(props), Time.SYSTEM);
    try {
      starting.startup();
    } catch (RuntimeException e) {
      try {
        starting.shutdown();
        starting.awaitShutdown();
      } catch (RuntimeException cleanup) {
        e.addSuppressed(cleanup);
      }
      throw new StackException(
          "The embedded Kafka broker did not start on ports "
              + brokerPort
              + " and "
              + controllerPort
              + ": "
              + e.getMessage(),
          e);
    }
    server = starting;
    awaitReady();
  }

  private void awaitReady() {
    long deadline = System.nanoTime() + READY_WAIT.toNanos();
    String last = "no answer";
    try (Admin admin = admin()) {
      while (System.nanoTime() < deadline) {
        try {
          boolean listed =
              admin.describeCluster().nodes().get(5, TimeUnit.SECONDS).stream()
                  .map(Node::id)
                  .anyMatch(id -> id == NODE_ID);
          if (!listed) {
            last = "the broker does not list itself";
          } else {
            Set<String> topics =
                admin
                    .listTopics(new ListTopicsOptions().listInternal(true))
                    .names()
                    .get(5, TimeUnit.SECONDS);
            Map<String, TopicDescription> described =
                admin.describeTopics(topics).allTopicNames().get(5, TimeUnit.SECONDS);
            long leaderless =
                described.values().stream()
                    .flatMap(t -> t.partitions().stream())
                    .filter(p -> p.leader() == null || p.leader().isEmpty())
                    .count();
            if (leaderless == 0) {
              return;
            }
            last = leaderless + " partitions have no leader";
          }
        } catch (ExecutionException | TimeoutException e) {
          last = e.getMessage();
        }
        Thread.sleep(100);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new StackException("Interrupted while waiting for the Kafka broker.", e);
    }
    throw new StackException(
        "The Kafka broker on "
            + bootstrapServers()
            + " was not ready "
            + READY_WAIT.toSeconds()
            + " s after its start: "
            + last
            + ".");
  }

  private void awaitPortsClosed() {
    long deadline = System.nanoTime() + PORT_WAIT.toNanos();
    while (Ports.accepting(brokerPort) || Ports.accepting(controllerPort)) {
      if (System.nanoTime() > deadline) {
        throw new StackException(
            "Port "
                + brokerPort
                + " or "
                + controllerPort
                + " still accepts connections "
                + PORT_WAIT.toSeconds()
                + " s after the Kafka broker stopped; another process took it.");
      }
      try {
        Thread.sleep(50);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new StackException("Interrupted while waiting for the Kafka ports to close.", e);
      }
    }
  }

  private Admin admin() {
    Map<String, Object> p = new HashMap<>(adminSecurity);
    p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers());
    p.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 5000);
    p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 5000);
    p.put(AdminClientConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, 200);
    p.put(AdminClientConfig.CLIENT_ID_CONFIG, "ordinal-server-control");
    return Admin.create(p);
  }
}

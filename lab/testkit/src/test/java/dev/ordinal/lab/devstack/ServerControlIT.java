package dev.ordinal.lab.devstack;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assumptions.assumeThat;
import static org.awaitility.Awaitility.await;

import dev.ordinal.lab.devstack.ServerControl.Backends;
import dev.ordinal.lab.devstack.ServerControl.Shutdown;
import dev.ordinal.testkit.OrdinalStackExtension;
import dev.ordinal.testkit.TestNamespace;
import dev.ordinal.testkit.TopicReads;
import java.lang.management.ManagementFactory;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import javax.management.ObjectName;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.server.metrics.KafkaYammerMetrics;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.postgresql.util.PSQLException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Real server faults on the shared embedded stack: PostgreSQL restarted, stopped and started, its
 * backends terminated; the broker stopped and started three times; starts on a taken port. Failsafe
 * runs this module's ITs one after another in one JVM, so restarting the shared servers disturbs no
 * other test; each test leaves both servers running. A stack of its own is closed with both servers
 * left stopped.
 */
@ExtendWith(OrdinalStackExtension.class)
class ServerControlIT {
  private static final Logger log = LoggerFactory.getLogger(ServerControlIT.class);

  /** SQLSTATE admin_shutdown: the server ended this connection (shutdown or terminate). */
  private static final String ADMIN_SHUTDOWN = "57P01";

  /** SQLSTATE connection_failure: the JDBC driver lost the connection. */
  private static final String CONNECTION_FAILURE = "08006";

  /** SQLSTATE sqlclient_unable_to_establish_sqlconnection: the JDBC driver could not connect. */
  private static final String UNABLE_TO_CONNECT = "08001";

  private static String user;
  private static String password;
  private ServerControl control;

  @BeforeEach
  void control(Stack stack) {
    assumeThat(stack.control()).as("only the embedded stack is controllable").isPresent();
    control = stack.control().orElseThrow();
    user = stack.dbUser();
    password = stack.dbPassword();
  }

  @AfterEach
  void serversUp() {
    if (control != null && !control.isPostgresUp()) {
      control.startPostgres();
    }
    if (control != null && !control.isKafkaUp()) {
      control.startKafka();
    }
  }

  @ParameterizedTest
  @EnumSource(Shutdown.class)
  void aPostgresRestartBreaksOpenConnectionsAndKeepsPortSettingsDataAndSlots(
      Shutdown how, TestNamespace ns, Stack stack) throws Exception {
    String table = "restart_" + how.name().toLowerCase(Locale.ROOT);
    String slot = ns.name() + "_" + table;
    int port = URI.create(stack.jdbcUrl().substring("jdbc:".length())).getPort();
    Timestamp startedBefore;
    try (Connection c = connect(ns.jdbcUrl(), "servercontrolit")) {
      try (Statement s = c.createStatement()) {
        s.execute("create table " + table + " (id int primary key, v text not null)");
        s.execute("insert into " + table + " values (1, 'committed before')");
      }
      try (PreparedStatement ps =
          c.prepareStatement("select pg_create_logical_replication_slot(?, 'pgoutput')")) {
        ps.setString(1, slot);
        ps.execute();
      }
      startedBefore = postmasterStart(c);
    }
    try (Connection old = connect(ns.jdbcUrl(), "servercontrolit-old")) {
      assertThat(old.isValid(2)).isTrue();

      long t0 = System.nanoTime();
      control.restartPostgres(how);
      log.info("restartPostgres({}) took {} ms", how, (System.nanoTime() - t0) / 1_000_000);

      assertThat(stack.jdbcUrl()).endsWith(":" + port + "/postgres");
      // a fast shutdown tells the client why; after an immediate one the socket is just gone
      String expected = how == Shutdown.CLEAN ? ADMIN_SHUTDOWN : CONNECTION_FAILURE;
      assertThatThrownBy(() -> selectOne(old))
          .isInstanceOfSatisfying(
              SQLException.class, e -> assertThat(e.getSQLState()).isEqualTo(expected));
      assertThat(old.isClosed()).as("closed by the driver").isTrue();
    }
    try (Connection c = connect(ns.jdbcUrl(), "servercontrolit")) {
      assertThat(postmasterStart(c)).isAfter(startedBefore);
      assertThat(queryString(c, "select v from " + table + " where id = 1"))
          .isEqualTo("committed before");
      assertThat(queryString(c, "show port")).isEqualTo(Integer.toString(port));
      assertThat(queryString(c, "show wal_level")).isEqualTo("logical");
      assertThat(
              queryString(c, "select source from pg_settings where name = 'wal_level'")
                  + " "
                  + queryString(c, "show max_replication_slots"))
          .as("the settings of zonky's command line, reused")
          .isEqualTo("command line 64");
      try (PreparedStatement ps =
          c.prepareStatement(
              "select slot_type || ' ' || plugin from pg_replication_slots where slot_name = ?")) {
        ps.setString(1, slot);
        try (ResultSet rs = ps.executeQuery()) {
          assertThat(rs.next()).as("slot %s survives", slot).isTrue();
          assertThat(rs.getString(1)).isEqualTo("logical pgoutput");
        }
      }
      try (PreparedStatement ps = c.prepareStatement("select pg_drop_replication_slot(?)")) {
        ps.setString(1, slot);
        ps.execute();
      }
    }
  }

  @Test
  void aStoppedPostgresRefusesConnectionsAndAStartedOneHasTheDataBack(TestNamespace ns)
      throws Exception {
    try (Connection c = connect(ns.jdbcUrl(), "servercontrolit");
        Statement s = c.createStatement()) {
      s.execute("create table stop_start (id int primary key)");
      s.execute("insert into stop_start values (7)");
    }
    int port = URI.create(ns.jdbcUrl().substring("jdbc:".length())).getPort();

    long t0 = System.nanoTime();
    control.stopPostgres();
    log.info("stopPostgres() took {} ms", (System.nanoTime() - t0) / 1_000_000);

    assertThat(control.isPostgresUp()).isFalse();
    assertThatThrownBy(() -> new Socket("localhost", port).close())
        .isInstanceOf(ConnectException.class);
    assertThatThrownBy(() -> connect(ns.jdbcUrl(), "servercontrolit"))
        .isInstanceOfSatisfying(
            PSQLException.class, e -> assertThat(e.getSQLState()).isEqualTo(UNABLE_TO_CONNECT))
        .hasRootCauseInstanceOf(ConnectException.class);
    assertThatThrownBy(() -> control.stopPostgres())
        .isInstanceOf(StackException.class)
        .hasMessageContaining("stopped");
    assertThatThrownBy(() -> control.terminateBackends())
        .isInstanceOf(StackException.class)
        .hasMessageContaining("stopped");

    t0 = System.nanoTime();
    control.startPostgres();
    log.info("startPostgres() took {} ms", (System.nanoTime() - t0) / 1_000_000);

    assertThat(control.isPostgresUp()).isTrue();
    assertThatThrownBy(() -> control.startPostgres())
        .isInstanceOf(StackException.class)
        .hasMessageContaining("already running on port " + port);
    try (Connection c = connect(ns.jdbcUrl(), "servercontrolit")) {
      assertThat(queryString(c, "select string_agg(id::text, ',') from stop_start")).isEqualTo("7");
      assertThat(queryString(c, "show wal_level")).isEqualTo("logical");
      assertThat(queryString(c, "show port")).isEqualTo(Integer.toString(port));
    }
  }

  @Test
  void terminateBackendsEndsTheMatchingConnectionsAndCountsThem(TestNamespace ns) throws Exception {
    String victim = ns.name() + "-victim";
    String role = ns.name() + "_role";
    try (Connection admin = connect(ns.jdbcUrl(), "servercontrolit");
        Statement s = admin.createStatement()) {
      s.execute("create role " + role + " login");
    }
    List<Connection> open = new ArrayList<>();
    try {
      Connection victim1 = track(open, connect(ns.jdbcUrl(), victim));
      Connection victim2 = track(open, connect(ns.jdbcUrl(), victim));
      Connection bystander = track(open, connect(ns.jdbcUrl(), ns.name() + "-bystander"));
      Connection ofRole = track(open, connect(ns.jdbcUrl(), ns.name() + "-role", role));

      assertThat(control.terminateBackends(Backends.withApplicationName(victim))).isEqualTo(2);
      assertTerminated(victim1);
      assertTerminated(victim2);
      assertThat(selectOne(bystander)).isEqualTo(1);
      assertThat(selectOne(ofRole)).isEqualTo(1);

      assertThat(control.terminateBackends(Backends.withApplicationName(victim))).isZero();
      assertThat(control.terminateBackends(Backends.ofUser(role))).isEqualTo(1);
      assertTerminated(ofRole);
      assertThat(selectOne(bystander)).isEqualTo(1);

      // every client connection of this JVM: the bystander and two more
      Connection other1 = track(open, connect(ns.jdbcUrl(), "servercontrolit-1"));
      Connection other2 = track(open, connect(ns.jdbcUrl(), "servercontrolit-2"));
      assertThat(control.terminateBackends()).isEqualTo(3);
      assertTerminated(bystander);
      assertTerminated(other1);
      assertTerminated(other2);
      assertThat(control.isPostgresUp()).as("the server keeps running").isTrue();
    } finally {
      for (Connection c : open) {
        c.close();
      }
      try (Connection admin = connect(ns.jdbcUrl(), "servercontrolit");
          Statement s = admin.createStatement()) {
        s.execute("drop role " + role);
      }
    }
  }

  @Test
  void theBrokerRestartsThreeTimesOnItsAddressWithItsRecordsAndOffsets(
      TestNamespace ns, Stack stack) throws Exception {
    String topic = ns.topic("restarts");
    String group = ns.group("restarts");
    String bootstrap = stack.kafkaBootstrap();
    int brokerPort = Integer.parseInt(bootstrap.substring(bootstrap.lastIndexOf(':') + 1));
    TestTopics.create(bootstrap, topic, 3);
    List<String> produced = new ArrayList<>();
    List<String> consumed = new ArrayList<>();
    List<Set<String>> jvmWhileStopped = new ArrayList<>();
    ExecutorService sender = Executors.newSingleThreadExecutor();
    sender.submit(() -> {}).get(); // its thread exists before the first snapshot
    try (KafkaProducer<String, String> producer = producer(bootstrap)) {
      send(producer, topic, "r0-", 10, produced);
      consumeAndCommit(bootstrap, topic, group, "earliest", 10, consumed);
      assertThat(consumed).containsExactlyInAnyOrderElementsOf(produced);

      for (int round = 1; round <= 3; round++) {
        Shutdown how = round == 2 ? Shutdown.CRASH : Shutdown.CLEAN;
        send(producer, topic, "r" + round + "-", 10, produced);
        Map<TopicPartition, OffsetAndMetadata> committedBefore = committed(bootstrap, group);
        assertThat(committedBefore).hasSize(3);

        long t0 = System.nanoTime();
        control.stopKafka(how);
        long stopMs = (System.nanoTime() - t0) / 1_000_000;
        assertThat(control.isKafkaUp()).isFalse();
        assertThatThrownBy(() -> new Socket("localhost", brokerPort).close())
            .isInstanceOf(ConnectException.class);
        jvmWhileStopped.add(jvmLeftovers());
        // send() itself blocks while the producer has no metadata for the topic (up to
        // max.block.ms): the broker's shutdown may have answered a metadata request without it
        String whileDown = "r" + round + "-sent-while-down";
        produced.add(whileDown);
        CompletableFuture<RecordMetadata> pending =
            CompletableFuture.supplyAsync(
                () -> deliver(producer, new ProducerRecord<>(topic, whileDown, whileDown)), sender);
        assertThat(pending).as("no broker to acknowledge it").isNotDone();

        t0 = System.nanoTime();
        control.startKafka();
        long startMs = (System.nanoTime() - t0) / 1_000_000;
        log.info(
            "round {}: stopKafka({}) took {} ms, startKafka() {} ms", round, how, stopMs, startMs);

        assertThat(stack.kafkaBootstrap()).isEqualTo(bootstrap);
        assertThat(pending.get(60, TimeUnit.SECONDS).topic()).isEqualTo(topic);
        assertThat(committed(bootstrap, group)).isEqualTo(committedBefore);
        // "none": resumes from the committed offsets or fails
        consumeAndCommit(bootstrap, topic, group, "none", 11, consumed);
        assertThat(consumed).containsExactlyInAnyOrderElementsOf(produced);
      }
    } finally {
      sender.shutdownNow();
    }
    assertThat(consumed).hasSize(10 + 3 * 11);
    assertThat(readAll(bootstrap, topic)).containsExactlyInAnyOrderElementsOf(produced);
    // what the broker leaves in the JVM while stopped, the same after the third stop as after the
    // first: its metrics, JMX beans and threads go with it, nothing piles up restart after restart
    assertThat(jvmWhileStopped.get(2)).isEqualTo(jvmWhileStopped.get(0));
    assertThat(jvmWhileStopped.get(0))
        .noneMatch(
            entry ->
                entry.startsWith("thread ") && BROKER_THREADS.stream().anyMatch(entry::contains));
  }

  @Test
  void aStartOnATakenPortFailsWithOneSentenceAndWorksOnceThePortIsFree(Stack stack)
      throws Exception {
    int pgPort = URI.create(stack.jdbcUrl().substring("jdbc:".length())).getPort();
    int brokerPort = URI.create("kafka://" + stack.kafkaBootstrap()).getPort();
    InetAddress localhost = InetAddress.getByName("localhost");

    control.stopPostgres();
    try (ServerSocket squatter = new ServerSocket(pgPort, 1, localhost)) {
      assertThatThrownBy(control::startPostgres)
          .isInstanceOf(StackException.class)
          .hasMessageStartingWith("pg_ctl start of PostgreSQL on port " + pgPort + " failed")
          .hasMessageContaining("FATAL:  could not create any TCP/IP sockets");
    }
    control.startPostgres();
    assertThat(control.isPostgresUp()).isTrue();

    control.stopKafka();
    try (ServerSocket squatter = new ServerSocket(brokerPort, 1, localhost)) {
      assertThatThrownBy(control::startKafka)
          .isInstanceOf(StackException.class)
          .hasMessageStartingWith("The embedded Kafka broker did not start on ports " + brokerPort);
    }
    control.startKafka();
    assertThat(control.isKafkaUp()).isTrue();
  }

  /** Its own stack: closing the shared one would end the other tests' servers. */
  @Test
  void aStackClosesWithBothServersLeftStoppedAndItsControlThenRefuses(@TempDir Path dir)
      throws Exception {
    Path cleanShutdownMarker = dir.resolve("kafka/logs/.kafka_cleanshutdown");
    Path pgData = dir.resolve("pg");
    ServerControl own;
    int pgPort;
    int brokerPort;
    try (Stack stack = Stack.start(StackConfig.embedded(dir))) {
      own = stack.control().orElseThrow();
      pgPort = URI.create(stack.jdbcUrl().substring("jdbc:".length())).getPort();
      brokerPort = URI.create("kafka://" + stack.kafkaBootstrap()).getPort();

      own.stopKafka(Shutdown.CLEAN);
      assertThat(cleanShutdownMarker).exists();
      own.startKafka();
      own.stopKafka(Shutdown.CRASH);
      assertThat(cleanShutdownMarker).doesNotExist();
      own.stopPostgres(Shutdown.CRASH);
      assertThat(postgresProcesses(pgData)).isZero();
    }
    // the stopped server was started (recovering from the immediate stop) and stopped by zonky
    List<String> serverLog = Files.readAllLines(dir.resolve("pg-server.log"));
    assertThat(serverLog)
        .filteredOn(line -> line.contains("database system was not properly shut down"))
        .hasSize(1);
    assertThat(serverLog.get(serverLog.size() - 1)).endsWith("database system is shut down");
    assertThat(postgresProcesses(pgData)).isZero();
    assertThat(pgData).as("zonky's close ran to its end").doesNotExist();
    assertThatThrownBy(() -> new Socket("localhost", pgPort).close())
        .isInstanceOf(ConnectException.class);
    assertThatThrownBy(() -> new Socket("localhost", brokerPort).close())
        .isInstanceOf(ConnectException.class);
    assertThatThrownBy(own::startPostgres)
        .isInstanceOf(StackException.class)
        .hasMessageContaining("closed");
    assertThatThrownBy(own::startKafka)
        .isInstanceOf(StackException.class)
        .hasMessageContaining("closed");
  }

  /** Live processes whose command line names {@code dataDir}: the postmaster and its children. */
  private static long postgresProcesses(Path dataDir) {
    String needle = "-D " + dataDir;
    return ProcessHandle.allProcesses()
        .filter(ProcessHandle::isAlive)
        .filter(
            p ->
                p.info()
                    .arguments()
                    .map(args -> String.join(" ", args).contains(needle))
                    .orElse(false))
        .count();
  }

  /** Names (digits as #) of the threads a running broker has and a stopped one must not. */
  private static final List<String> BROKER_THREADS =
      List.of(
          "data-plane-kafka",
          "quorum-controller",
          "raft",
          "broker-#",
          "controller-#",
          "kafka-scheduler",
          "group-coordinator",
          "ExpirationReaper",
          "SensorExpiryThread");

  /**
   * The broker-side Yammer metrics, the JMX beans of the server domains and the threads (numbers in
   * names replaced by #): an in-process restart that left any behind would grow them. The broker's
   * threads are first given up to 10 s to end: a pool the broker shut down and awaited can still
   * list its last thread for a moment while it leaves (seen once in CI: SensorExpiryThread, whose
   * pool the broker's metrics await on close), so a thread counts only if it outlives that bound.
   */
  private static Set<String> jvmLeftovers() throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    for (Thread t : Thread.getAllStackTraces().keySet()) {
      String name = t.getName().replaceAll("\\d+", "#");
      long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
      if (left > 0 && BROKER_THREADS.stream().anyMatch(name::contains)) {
        t.join(left);
      }
    }
    Set<String> all = new TreeSet<>();
    KafkaYammerMetrics.defaultRegistry().allMetrics().keySet().stream()
        .map(n -> "metric " + n.getMBeanName())
        .forEach(all::add);
    for (String domain :
        List.of("kafka.server", "kafka.controller", "kafka.log", "kafka.network")) {
      ManagementFactory.getPlatformMBeanServer()
          .queryNames(new ObjectName(domain + ":*"), null)
          .forEach(n -> all.add("bean " + n));
    }
    Map<String, Long> threads =
        Thread.getAllStackTraces().keySet().stream()
            .collect(
                Collectors.groupingBy(
                    t -> t.getName().replaceAll("\\d+", "#"), Collectors.counting()));
    threads.forEach((name, count) -> all.add("thread " + name + " x" + count));
    return all;
  }

  private static void send(
      KafkaProducer<String, String> producer,
      String topic,
      String prefix,
      int count,
      List<String> produced)
      throws Exception {
    List<Future<RecordMetadata>> acks = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      String value = prefix + i;
      acks.add(producer.send(new ProducerRecord<>(topic, value, value)));
      produced.add(value);
    }
    for (Future<RecordMetadata> ack : acks) {
      ack.get(30, TimeUnit.SECONDS);
    }
  }

  /** Reads {@code expected} records as {@code group} from its committed offsets, then commits. */
  private static void consumeAndCommit(
      String bootstrap,
      String topic,
      String group,
      String reset,
      int expected,
      List<String> consumed) {
    List<String> seen = new ArrayList<>();
    try (KafkaConsumer<String, String> consumer = consumer(bootstrap, group, reset)) {
      consumer.subscribe(List.of(topic));
      await()
          .pollInSameThread()
          .atMost(Duration.ofSeconds(60))
          .pollInterval(Duration.ZERO)
          .until(
              () -> {
                consumer.poll(Duration.ofMillis(200)).forEach(r -> seen.add(r.value()));
                return seen.size() >= expected && consumer.assignment().size() == 3;
              });
      Map<TopicPartition, OffsetAndMetadata> positions = new HashMap<>();
      for (TopicPartition tp : consumer.assignment()) {
        positions.put(tp, new OffsetAndMetadata(consumer.position(tp)));
      }
      consumer.commitSync(positions);
    }
    assertThat(seen).hasSize(expected);
    consumed.addAll(seen);
  }

  private static RecordMetadata deliver(
      KafkaProducer<String, String> producer, ProducerRecord<String, String> record) {
    try {
      return producer.send(record).get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    } catch (ExecutionException e) {
      throw new IllegalStateException(e.getCause());
    }
  }

  private static List<String> readAll(String bootstrap, String topic) {
    List<TopicPartition> partitions =
        List.of(
            new TopicPartition(topic, 0),
            new TopicPartition(topic, 1),
            new TopicPartition(topic, 2));
    return TopicReads.readToEnd(bootstrap, partitions, Duration.ofSeconds(30)).stream()
        .map(ConsumerRecord::value)
        .toList();
  }

  private static Map<TopicPartition, OffsetAndMetadata> committed(String bootstrap, String group)
      throws Exception {
    try (Admin admin = admin(bootstrap)) {
      return admin
          .listConsumerGroupOffsets(group)
          .partitionsToOffsetAndMetadata()
          .get(30, TimeUnit.SECONDS);
    }
  }

  private static Admin admin(String bootstrap) {
    return Admin.create(
        Map.<String, Object>of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap));
  }

  private static KafkaProducer<String, String> producer(String bootstrap) {
    return new KafkaProducer<>(
        Map.<String, Object>of(
            ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
            bootstrap,
            ProducerConfig.ACKS_CONFIG,
            "all",
            ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG,
            true,
            ProducerConfig.LINGER_MS_CONFIG,
            0),
        new StringSerializer(),
        new StringSerializer());
  }

  private static KafkaConsumer<String, String> consumer(
      String bootstrap, String group, String reset) {
    Map<String, Object> config = new HashMap<>();
    config.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    config.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, reset);
    config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    if (group != null) {
      config.put(ConsumerConfig.GROUP_ID_CONFIG, group);
    }
    return new KafkaConsumer<>(config, new StringDeserializer(), new StringDeserializer());
  }

  private static Connection track(List<Connection> open, Connection c) {
    open.add(c);
    return c;
  }

  private static void assertTerminated(Connection c) {
    assertThatThrownBy(() -> selectOne(c))
        .isInstanceOfSatisfying(
            SQLException.class, e -> assertThat(e.getSQLState()).isEqualTo(ADMIN_SHUTDOWN));
  }

  private static Connection connect(String url, String applicationName) throws SQLException {
    return connect(url, applicationName, user);
  }

  private static Connection connect(String url, String applicationName, String user)
      throws SQLException {
    Properties props = new Properties();
    props.setProperty("user", user);
    props.setProperty("password", password);
    props.setProperty("ApplicationName", applicationName);
    props.setProperty("connectTimeout", "5");
    return DriverManager.getConnection(url, props);
  }

  private static int selectOne(Connection c) throws SQLException {
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("select 1")) {
      rs.next();
      return rs.getInt(1);
    }
  }

  private static String queryString(Connection c, String sql) throws SQLException {
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      rs.next();
      return rs.getString(1);
    }
  }

  private static Timestamp postmasterStart(Connection c) throws SQLException {
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("select pg_postmaster_start_time()")) {
      rs.next();
      return rs.getTimestamp(1);
    }
  }
}

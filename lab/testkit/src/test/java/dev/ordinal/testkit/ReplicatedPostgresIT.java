package dev.ordinal.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.ordinal.lab.devstack.StackException;
import java.net.ConnectException;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A failover logical slot on {@link ReplicatedPostgres}: consumed once on the primary, synced to
 * the standby, then the primary crashes and the standby is promoted; the promoted standby has the
 * slot and decodes from it exactly the rows committed after the sync point, plus new ones.
 */
class ReplicatedPostgresIT {
  private static final Logger log = LoggerFactory.getLogger(ReplicatedPostgresIT.class);

  private static final String SLOT = "failover_slot";
  private static final String PUBLICATION = "failover_pub";

  /** pgoutput's message type of an insert. */
  private static final byte INSERT = 'I';

  @Test
  void aSyncedFailoverSlotSurvivesACrashOfThePrimaryAndThePromotedStandbyDecodesTheRest(
      @TempDir Path dir) throws Exception {
    long t0 = System.nanoTime();
    int primaryPort;
    int standbyPort;
    try (ReplicatedPostgres pg = ReplicatedPostgres.start(dir)) {
      long startMs = millisSince(t0);
      primaryPort = pg.primaryPort();
      standbyPort = pg.standbyPort();
      assertThat(pg.multiHostUrl())
          .isEqualTo(
              "jdbc:postgresql://localhost:"
                  + primaryPort
                  + ",localhost:"
                  + standbyPort
                  + "/postgres");

      try (Connection p = connect(pg.primaryUrl(), pg);
          Connection s = connect(pg.standbyUrl(), pg)) {
        assertThat(queryString(s, "select system_identifier::text from pg_control_system()"))
            .as("a copy of the primary's cluster, not a fresh initdb")
            .isEqualTo(queryString(p, "select system_identifier::text from pg_control_system()"));
        assertThat(queryString(p, "select pg_is_in_recovery()::text")).isEqualTo("false");
        assertThat(queryString(s, "select pg_is_in_recovery()::text")).isEqualTo("true");
        assertThat(queryString(p, "show synchronized_standby_slots")).isEqualTo("standby1");
        assertThat(queryString(s, "show synchronized_standby_slots")).isEmpty();
        assertThat(queryString(s, "show sync_replication_slots")).isEqualTo("on");
        assertThat(queryString(p, "select string_agg(slot_name, ',') from pg_replication_slots"))
            .isEqualTo("standby1");
        assertThat(queryString(s, "select count(*)::text from pg_replication_slots"))
            .as("the primary's slots are not copied")
            .isEqualTo("0");
      }
      assertThat(serverPort(pg.multiHostUrl(), pg)).isEqualTo(primaryPort);

      String confirmedOnPrimary;
      try (Connection p = connect(pg.primaryUrl(), pg)) {
        execute(p, "create table failover_t (id int primary key, v text not null)");
        execute(p, "create publication " + PUBLICATION + " for table failover_t");
        selectWithName(p, "select pg_create_logical_replication_slot(?, 'pgoutput')", "plain");
        selectWithName(
            p,
            "select pg_create_logical_replication_slot(?, 'pgoutput', false, false, true)",
            SLOT);
      }
      long t1 = System.nanoTime();
      pg.awaitSlotOnStandby(SLOT, Duration.ofSeconds(30));
      long seenMs = millisSince(t1);
      try (Connection p = connect(pg.primaryUrl(), pg)) {
        insertRows(p, 1, 10);
        assertThat(insertedIds(p, "get", SLOT)).containsExactlyElementsOf(ids(1, 10));
        confirmedOnPrimary = confirmedFlush(p, SLOT);
      }
      assertThatThrownBy(() -> pg.awaitSlotSynced("plain", Duration.ofSeconds(1)))
          .isInstanceOf(StackException.class)
          .hasMessageContaining("not a permanent logical failover slot");
      assertThatThrownBy(() -> pg.awaitSlotSynced("nope", Duration.ofSeconds(1)))
          .isInstanceOf(StackException.class)
          .hasMessageContaining("no slot nope");

      t1 = System.nanoTime();
      pg.awaitSlotSynced(SLOT, Duration.ofSeconds(30));
      long syncMs = millisSince(t1);

      try (Connection p = connect(pg.primaryUrl(), pg)) {
        insertRows(p, 11, 20);
      }
      // the standby streams asynchronously: once it has the rows, a crash cannot take them
      try (Connection s = connect(pg.standbyUrl(), pg)) {
        await()
            .atMost(Duration.ofSeconds(15))
            .pollInterval(Duration.ofMillis(50))
            .until(() -> queryString(s, "select count(*)::text from failover_t").equals("20"));
      }

      long t2 = System.nanoTime();
      pg.crashPrimary();
      long crashMs = millisSince(t2);
      long t3 = System.nanoTime();
      pg.promoteStandby();
      long promoteMs = millisSince(t3);

      try (Connection n = connect(pg.standbyUrl(), pg)) {
        assertThat(queryString(n, "select pg_is_in_recovery()::text")).isEqualTo("false");
        try (PreparedStatement ps =
            n.prepareStatement(
                """
                select slot_type || ' failover=' || failover || ' synced=' || synced
                       || ' temporary=' || temporary,
                       (confirmed_flush_lsn >= cast(? as pg_lsn))::text
                  from pg_replication_slots
                 where slot_name = ?
                """)) {
          ps.setString(1, confirmedOnPrimary);
          ps.setString(2, SLOT);
          try (ResultSet rs = ps.executeQuery()) {
            assertThat(rs.next()).as("slot %s on the promoted standby", SLOT).isTrue();
            assertThat(rs.getString(1))
                .isEqualTo("logical failover=true synced=true temporary=false");
            assertThat(rs.getString(2))
                .as("confirmed_flush_lsn >= the primary's")
                .isEqualTo("true");
          }
        }
        assertThat(queryString(n, "select string_agg(id::text, ',' order by id) from failover_t"))
            .isEqualTo(String.join(",", ids(1, 20).stream().map(String::valueOf).toList()));
        insertRows(n, 21, 21);
        // peek, so a decoding that waits for a standby (synchronized_standby_slots) fails here
        assertThat(insertedIds(n, "peek", SLOT))
            .as("the rows committed after the sync point, then the new one")
            .containsExactlyElementsOf(ids(11, 21));
      }
      assertThat(serverPort(pg.multiHostUrl(), pg))
          .as("targetServerType=primary finds the promoted standby")
          .isEqualTo(standbyPort);
      log.info(
          "start {} ms, awaitSlotOnStandby {} ms, awaitSlotSynced {} ms, crashPrimary {} ms,"
              + " promoteStandby {} ms",
          startMs,
          seenMs,
          syncMs,
          crashMs,
          promoteMs);
      t0 = System.nanoTime();
    }
    log.info("close {} ms (the crashed primary started once more to be stopped)", millisSince(t0));
    for (int port : new int[] {primaryPort, standbyPort}) {
      assertThatThrownBy(() -> new Socket("localhost", port).close())
          .as("port %d after close", port)
          .isInstanceOf(ConnectException.class);
    }
    assertThat(dir.resolve("primary/postmaster.pid")).doesNotExist();
    assertThat(dir.resolve("standby/postmaster.pid")).doesNotExist();
    assertThat(Files.readString(dir.resolve("standby-server.log")))
        .as("the slot sync worker logged to the standby's log")
        .contains("newly created replication slot \"" + SLOT + "\" is sync-ready now");
  }

  /** One transaction per row, so that every row is a commit of its own. */
  private static void insertRows(Connection c, int from, int to) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("insert into failover_t values (?, ?)")) {
      for (int id = from; id <= to; id++) {
        ps.setInt(1, id);
        ps.setString(2, "row " + id);
        ps.executeUpdate();
      }
    }
  }

  /**
   * The ids of the inserts {@code pg_logical_slot_<how>_binary_changes} returns: pgoutput's Insert
   * is 'I', the relation's oid, 'N', the column count, then per column a kind byte ('t' for text),
   * a length and the value; the id is the first column.
   */
  private static List<Integer> insertedIds(Connection c, String how, String slot)
      throws SQLException {
    List<Integer> ids = new ArrayList<>();
    try (PreparedStatement ps =
        c.prepareStatement(
            "select data from pg_logical_slot_"
                + how
                + "_binary_changes(?, null, null, 'proto_version', '4', 'publication_names', ?)")) {
      ps.setQueryTimeout(20);
      ps.setString(1, slot);
      ps.setString(2, PUBLICATION);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          ByteBuffer message = ByteBuffer.wrap(rs.getBytes(1));
          if (message.get() != INSERT) {
            continue;
          }
          message.getInt(); // relation oid
          assertThat((char) message.get()).isEqualTo('N');
          message.getShort(); // columns
          assertThat((char) message.get()).isEqualTo('t');
          byte[] value = new byte[message.getInt()];
          message.get(value);
          ids.add(Integer.parseInt(new String(value, StandardCharsets.UTF_8)));
        }
      }
    }
    return ids;
  }

  private static String confirmedFlush(Connection c, String slot) throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement(
            "select confirmed_flush_lsn::text from pg_replication_slots where slot_name = ?")) {
      ps.setString(1, slot);
      try (ResultSet rs = ps.executeQuery()) {
        assertThat(rs.next()).isTrue();
        return rs.getString(1);
      }
    }
  }

  /** The port of the server {@code url} with {@code targetServerType=primary} reaches. */
  private static int serverPort(String url, ReplicatedPostgres pg) throws SQLException {
    // hostRecheckSeconds=0: pgjdbc would otherwise remember for 10 s which host was a standby
    try (Connection c =
        connect(url + "?targetServerType=primary&hostRecheckSeconds=0&connectTimeout=3", pg)) {
      return Integer.parseInt(queryString(c, "select inet_server_port()::text"));
    }
  }

  private static List<Integer> ids(int from, int to) {
    return IntStream.rangeClosed(from, to).boxed().toList();
  }

  private static void selectWithName(Connection c, String sql, String name) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      ps.setString(1, name);
      ps.execute();
    }
  }

  private static void execute(Connection c, String sql) throws SQLException {
    try (Statement s = c.createStatement()) {
      s.execute(sql);
    }
  }

  private static String queryString(Connection c, String sql) throws SQLException {
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      rs.next();
      return rs.getString(1);
    }
  }

  private static Connection connect(String url, ReplicatedPostgres pg) throws SQLException {
    Properties props = new Properties();
    props.setProperty("user", pg.user());
    props.setProperty("password", pg.password());
    props.setProperty("ApplicationName", "replicatedpostgresit");
    return DriverManager.getConnection(url, props);
  }

  private static long millisSince(long t0) {
    return (System.nanoTime() - t0) / 1_000_000;
  }
}

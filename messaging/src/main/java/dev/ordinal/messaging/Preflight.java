package dev.ordinal.messaging;

import dev.ordinal.messaging.db.DatabaseSettings;
import dev.ordinal.messaging.db.TlsFailure;
import dev.ordinal.messaging.kafka.KafkaClients;
import dev.ordinal.messaging.kafka.KafkaRefusals;
import dev.ordinal.runtime.ServerUnavailableException;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.common.KafkaException;
import org.jooq.DSLContext;
import org.jooq.impl.DSL;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * Checks that the servers a process needs are there and usable, and turns every failure into one
 * sentence that names the setting to fix: {@link ServerUnavailableException} when the server does
 * not answer (yet) — a service waits for it — and {@link ConfigurationException} when it answers
 * but refuses (a login, a missing database, a server setting, a missing grant) — fix the setting.
 * Call before starting anything that would otherwise fail deep inside a driver or Debezium.
 */
public final class Preflight {
  public static final String KAFKA_SETTING = "ORDINAL_KAFKA_BOOTSTRAP";
  public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(10);

  private Preflight() {}

  /**
   * Connects to PostgreSQL; with {@code forLogicalReplication}, also checks {@code wal_level} and
   * that the role may replicate.
   *
   * @throws ServerUnavailableException when it does not answer, naming the setting
   * @throws ConfigurationException naming the setting to fix
   */
  public static void checkPostgres(DatabaseSettings db, boolean forLogicalReplication) {
    checkPostgres(db, forLogicalReplication, DEFAULT_TIMEOUT);
  }

  /** As {@link #checkPostgres(DatabaseSettings, boolean)}, giving up after {@code timeout}. */
  public static void checkPostgres(
      DatabaseSettings db, boolean forLogicalReplication, Duration timeout) {
    int seconds = (int) Math.max(1, timeout.toSeconds());
    PGSimpleDataSource ds = new PGSimpleDataSource();
    ds.setUrl(db.jdbcUrl());
    ds.setUser(db.user());
    ds.setPassword(db.password());
    ds.setConnectTimeout(seconds);
    ds.setLoginTimeout(seconds);
    ds.setSocketTimeout(seconds);
    ds.setApplicationName("ordinal-check");
    try (Connection c = ds.getConnection()) {
      if (forLogicalReplication) {
        DSLContext dsl = DSL.using(c);
        String walLevel =
            dsl.fetchValue(DSL.field("current_setting({0})", String.class, DSL.val("wal_level")));
        if (!"logical".equals(walLevel)) {
          throw new ConfigurationException(
              "PostgreSQL at "
                  + db.redactedUrl()
                  + " has wal_level="
                  + walLevel
                  + ", and the CDC relay needs wal_level=logical: set it in postgresql.conf (or ALTER"
                  + " SYSTEM SET wal_level = logical) and restart the server.");
        }
        Boolean mayReplicate =
            dsl.fetchValue(
                DSL.field(
                    "(select rolreplication or rolsuper from pg_roles where rolname = current_user)",
                    Boolean.class));
        if (!Boolean.TRUE.equals(mayReplicate)) {
          throw new ConfigurationException(
              "The PostgreSQL role "
                  + db.user()
                  + " ("
                  + DatabaseSettings.USER_SETTING
                  + ") lacks the REPLICATION attribute the CDC relay needs: ALTER ROLE "
                  + db.user()
                  + " REPLICATION, or use a role that has it.");
        }
      }
    } catch (SQLException e) {
      if (unavailable(e)) {
        throw new ServerUnavailableException(describe(db, e), e);
      }
      throw new ConfigurationException(describe(db, e), e);
    } catch (org.jooq.exception.DataAccessException e) {
      SQLException sql = e.getCause(SQLException.class);
      if (sql != null && unavailable(sql)) {
        throw new ServerUnavailableException(describe(db, sql), e);
      }
      throw new ConfigurationException(
          "PostgreSQL at " + db.redactedUrl() + " refused a start-up check: " + firstLine(e), e);
    }
  }

  /**
   * Asks the Kafka cluster at {@code bootstrapServers} for its nodes, with no client properties of
   * the user's ({@link #checkKafka(KafkaClients, Duration)}).
   */
  public static void checkKafka(String bootstrapServers, Duration timeout) {
    if (bootstrapServers == null || bootstrapServers.isBlank()) {
      throw new ConfigurationException(
          KAFKA_SETTING + " is empty; set it to the Kafka bootstrap servers (host:port).");
    }
    checkKafka(KafkaClients.of(bootstrapServers), timeout);
  }

  /**
   * Asks the Kafka cluster for its nodes, through an admin client made by {@code clients}.
   *
   * @throws ServerUnavailableException naming {@value #KAFKA_SETTING} when no broker answers in
   *     time
   * @throws ConfigurationException naming {@value #KAFKA_SETTING} when the address is unusable, or
   *     the client properties when the cluster refuses the client (authentication, authorization)
   */
  public static void checkKafka(KafkaClients clients, Duration timeout) {
    int ms = (int) timeout.toMillis();
    String bootstrapServers = clients.bootstrapServers();
    try (Admin admin =
        clients.admin(
            "check",
            Map.of(
                AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, ms,
                AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, ms,
                AdminClientConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, 1000))) {
      admin.describeCluster().nodes().get(ms, TimeUnit.MILLISECONDS);
    } catch (TimeoutException | ExecutionException e) {
      if (e.getCause() instanceof org.apache.kafka.common.errors.AuthenticationException
          || e.getCause() instanceof org.apache.kafka.common.errors.AuthorizationException) {
        throw new ConfigurationException(KafkaRefusals.refusal(clients, e.getCause()), e);
      }
      throw new ServerUnavailableException(
          "No Kafka broker answered at "
              + bootstrapServers
              + " ("
              + KAFKA_SETTING
              + ") within "
              + timeout.toSeconds()
              + " s; check that the broker runs, the address is right and "
              + propertiesOf(clients)
              + " match its listener (security.protocol).",
          e);
    } catch (KafkaException e) {
      throw new ConfigurationException(
          KAFKA_SETTING
              + "="
              + bootstrapServers
              + " with "
              + propertiesOf(clients)
              + " is not usable: "
              + firstLine(e),
          e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new ConfigurationException("Interrupted while checking Kafka at " + bootstrapServers);
    }
  }

  /** The client properties {@code clients} were made with, as a refusal names them. */
  public static String propertiesOf(KafkaClients clients) {
    return clients.source() == null
        ? "the Kafka client properties (none were given: "
            + KafkaClients.FILE_SETTING
            + ", or --command-config for an operator command, names a file of them)"
        : "the Kafka client properties of " + clients.source();
  }

  /**
   * True when {@code e} means the server does not answer or cannot take the session now (refused,
   * timed out, starting up, shutting down, full, a standby that cannot take writes): something to
   * wait for, not to fix.
   */
  public static boolean unavailable(SQLException e) {
    if (TlsFailure.isTlsFailure(e)) {
      // a certificate that does not verify is a connection failure too (08006), but no wait mends
      // it
      return false;
    }
    String state = e.getSQLState();
    return state == null
        || state.startsWith("08")
        || state.equals("57P01")
        || state.equals("57P02")
        || state.equals("57P03")
        || state.equals("53300")
        // read_only_sql_transaction: a standby (a switchover demoted it) until the primary is found
        || state.equals("25006");
  }

  private static String describe(DatabaseSettings db, SQLException e) {
    String tls = TlsFailure.describe(db, e);
    if (tls != null) {
      return tls;
    }
    String state = e.getSQLState() == null ? "" : e.getSQLState();
    if (state.startsWith("28")) {
      return "PostgreSQL at "
          + db.redactedUrl()
          + " refused the login of "
          + db.user()
          + ": fix "
          + DatabaseSettings.USER_SETTING
          + " or "
          + DatabaseSettings.PASSWORD_SETTING
          + ".";
    }
    if (state.equals("3D000")) {
      return "PostgreSQL at "
          + db.redactedUrl()
          + " has no such database: fix the database name in "
          + DatabaseSettings.URL_SETTING
          + ".";
    }
    return "Cannot connect to PostgreSQL at "
        + db.redactedUrl()
        + " ("
        + DatabaseSettings.URL_SETTING
        + "): "
        + firstLine(e)
        + "; check that the server runs and the URL is right.";
  }

  /** The first sentence of {@code e}'s message, without its full stop, any password redacted. */
  public static String firstLine(Throwable e) {
    String m = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
    int nl = m.indexOf('\n');
    String line = nl < 0 ? m : m.substring(0, nl);
    int sentence = line.indexOf(". ");
    line = sentence < 0 ? line : line.substring(0, sentence);
    return DatabaseSettings.redact(line).replaceAll("[.]$", "");
  }
}

package dev.ordinal.messaging;

import dev.ordinal.messaging.db.DatabaseSettings;
import dev.ordinal.messaging.kafka.KafkaClients;
import dev.ordinal.messaging.kafka.KafkaRefusals;
import dev.ordinal.runtime.ServerCheck;
import dev.ordinal.runtime.ServerUnavailableException;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.common.errors.AuthenticationException;
import org.apache.kafka.common.errors.AuthorizationException;

/**
 * The servers a service needs, as {@link ServerCheck}s its runtime waits for at start and watches
 * for readiness. Each question is bounded by {@link #CHECK_TIMEOUT}.
 */
public final class Servers {
  public static final Duration CHECK_TIMEOUT = Duration.ofSeconds(3);

  private Servers() {}

  /**
   * PostgreSQL at {@code db}; with {@code forLogicalReplication}, also {@code wal_level} and the
   * role's REPLICATION attribute (see {@link Preflight#checkPostgres}).
   */
  public static ServerCheck postgres(DatabaseSettings db, boolean forLogicalReplication) {
    return new ServerCheck(
        "postgresql",
        DatabaseSettings.URL_SETTING,
        db.redactedUrl(),
        () -> Preflight.checkPostgres(db, forLogicalReplication, CHECK_TIMEOUT));
  }

  /**
   * The Kafka cluster {@code clients} connect to: its nodes are asked for through one admin client
   * kept for the checks (closed with the runtime), made by {@code clients}.
   */
  public static ServerCheck kafka(KafkaClients clients) {
    return new ServerCheck(
        "kafka", Preflight.KAFKA_SETTING, clients.bootstrapServers(), new KafkaProbe(clients));
  }

  /**
   * True when {@code e}, or one of its causes, says a server did not answer or could not take the
   * work now (refused, timed out, restarting, a pool out of connections, a Kafka retriable error):
   * worth waiting for, not a configuration to fix.
   */
  public static boolean isUnavailable(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof ServerUnavailableException
          || t instanceof java.sql.SQLTransientConnectionException
          || t instanceof org.apache.kafka.common.errors.RetriableException
          || t instanceof TimeoutException
          || t instanceof java.net.ConnectException) {
        return true;
      }
      if (t instanceof java.sql.SQLException sql && Preflight.unavailable(sql)) {
        return true;
      }
    }
    return false;
  }

  /** Asks the cluster for its nodes through an admin client made on first use. */
  private static final class KafkaProbe implements ServerCheck.Probe, AutoCloseable {
    private final KafkaClients clients;
    private final String bootstrap;
    private Admin admin;

    KafkaProbe(KafkaClients clients) {
      this.clients = clients;
      this.bootstrap = clients.bootstrapServers();
    }

    @Override
    public synchronized void check() {
      if (admin == null) {
        // the first time, the whole check: a wrong address or a refused login is reported as such
        Preflight.checkKafka(clients, CHECK_TIMEOUT);
        int ms = (int) CHECK_TIMEOUT.toMillis();
        admin =
            clients.admin(
                "health",
                Map.of(
                    AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, ms,
                    AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, ms,
                    AdminClientConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, 1000));
        return;
      }
      try {
        admin.describeCluster().nodes().get(CHECK_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
      } catch (ExecutionException e) {
        if (e.getCause() instanceof AuthenticationException
            || e.getCause() instanceof AuthorizationException) {
          throw new ConfigurationException(KafkaRefusals.refusal(clients, e.getCause()), e);
        }
        throw unavailable(e);
      } catch (TimeoutException e) {
        throw unavailable(e);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw unavailable(e);
      }
    }

    private ServerUnavailableException unavailable(Exception e) {
      return new ServerUnavailableException(
          "No Kafka broker answered at "
              + bootstrap
              + " ("
              + Preflight.KAFKA_SETTING
              + ") within "
              + CHECK_TIMEOUT.toSeconds()
              + " s",
          e);
    }

    @Override
    public synchronized void close() {
      if (admin != null) {
        admin.close(Duration.ofSeconds(2));
      }
    }
  }
}

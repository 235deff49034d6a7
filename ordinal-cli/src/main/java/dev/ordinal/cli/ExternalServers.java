package dev.ordinal.cli;

import com.zaxxer.hikari.HikariDataSource;
import dev.ordinal.messaging.ConfigurationException;
import dev.ordinal.messaging.Preflight;
import dev.ordinal.messaging.RefusedException;
import dev.ordinal.messaging.db.DatabaseSettings;
import dev.ordinal.messaging.kafka.KafkaClients;
import dev.ordinal.messaging.kafka.KafkaRefusals;
import dev.ordinal.runtime.OrdinalException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.function.UnaryOperator;
import javax.sql.DataSource;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.common.KafkaException;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.exception.DataAccessException;
import org.jooq.impl.DSL;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;

/**
 * The servers the operator commands ({@code replay}, {@code dlq}, {@code invoices}, the relay's
 * recovery) act on: the ones the services use, named by the settings ({@link ServerSettings}). Also
 * turns every failure of those commands into one sentence on stderr and an exit status.
 */
final class ExternalServers implements AutoCloseable {
  static final Duration TIMEOUT = Duration.ofSeconds(10);

  private static final Logger log = LoggerFactory.getLogger(ExternalServers.class);

  private final ServerSettings config;
  private final KafkaClients kafka;
  private final String command;
  private final List<AutoCloseable> opened = new ArrayList<>();

  private ExternalServers(ServerSettings config, KafkaClients kafka, String command) {
    this.config = config;
    this.kafka = kafka;
    this.command = command;
  }

  /**
   * The servers {@code env} names, Kafka's clients with the client properties of {@code
   * commandConfig} (the command's {@code --command-config}) when given, else of the file {@code
   * ORDINAL_KAFKA_CONFIG} names.
   *
   * @throws ConfigurationException when it names no database or no Kafka cluster, or a Kafka client
   *     properties file that cannot be read or is refused
   */
  static ExternalServers from(Map<String, String> env, String command, Path commandConfig) {
    ServerSettings servers = ServerSettings.from(env).requireBoth(command);
    return new ExternalServers(servers, servers.kafka(command, commandConfig), command);
  }

  /** The Kafka cluster and the client properties its clients are made with (no connection). */
  KafkaClients kafka() {
    return kafka;
  }

  /**
   * {@link #kafka()}, once the cluster has answered: a refused login is one sentence naming the
   * client properties, exit status 2.
   */
  KafkaClients checkedKafka() {
    Preflight.checkKafka(kafka, TIMEOUT);
    return kafka;
  }

  /** The database's settings, bound to the primary: the commands write logs (no connection). */
  DatabaseSettings databaseSettings() {
    return new DatabaseSettings(config.dbUrl(), config.dbUser(), config.dbPassword()).forPrimary();
  }

  /** An admin client, once the broker has answered. */
  Admin admin() {
    Preflight.checkKafka(kafka, TIMEOUT);
    int ms = (int) TIMEOUT.toMillis();
    Admin admin =
        kafka.admin(
            command.replaceAll("\\s*--\\S+", "").replace(' ', '-'),
            Map.of(
                AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, ms,
                AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, ms));
    opened.add(admin);
    return admin;
  }

  /**
   * A connection pool on {@code schema}, once PostgreSQL has answered.
   *
   * @param mustExist refuse a schema that does not exist (a typo would otherwise create it)
   */
  DataSource database(String schema, boolean mustExist) {
    DatabaseSettings db = databaseSettings();
    Preflight.checkPostgres(db, false);
    HikariDataSource pool = db.withSchema(schema).pool("ordinal-operator", 2);
    opened.add(pool);
    DSLContext dsl = DSL.using(pool, SQLDialect.POSTGRES);
    if (mustExist
        && !dsl.fetchExists(
            DSL.selectOne()
                .from(DSL.table(DSL.name("information_schema", "schemata")))
                .where(DSL.field(DSL.name("schema_name"), String.class).eq(schema)))) {
      throw new RefusedException(
          "Schema "
              + schema
              + " does not exist in "
              + db.redactedUrl()
              + "; --schema must name the schema of the consumer's inbox.");
    }
    return pool;
  }

  @Override
  public void close() {
    for (AutoCloseable c : opened) {
      try {
        c.close();
      } catch (Exception e) {
        log.warn("Could not close {}", c, e);
      }
    }
  }

  /** A command's work on the servers, printing to the command's output. */
  interface Work {
    int on(ExternalServers servers, PrintWriter out) throws Exception;
  }

  /**
   * {@code work} on the servers {@code env} names, closed after it, {@linkplain #run(CommandLine,
   * String, Callable) run} so that any failure (a missing server too) becomes one sentence and an
   * exit status. For work that needs no Kafka ACL.
   */
  static int run(CommandLine cli, String command, Map<String, String> env, Work work) {
    return run(cli, command, env, null, null, work);
  }

  /**
   * As {@link #run(CommandLine, String, Map, Work)}, Kafka's clients with the client properties of
   * {@code commandConfig} when given ({@link #from}), and a missing ACL worded with the operation
   * {@code needs} names ({@link #within}).
   */
  static int run(
      CommandLine cli,
      String command,
      Map<String, String> env,
      Path commandConfig,
      UnaryOperator<String> needs,
      Work work) {
    return run(cli, command, () -> within(env, command, commandConfig, needs, cli.getOut(), work));
  }

  /**
   * {@code work} on the servers {@code env} names, closed after it. A Kafka refusal for a missing
   * ACL becomes the one sentence naming the refused resource, the operation {@code needs} says the
   * work needs on it ({@code READ} for {@code group g}) and the client properties whose user lacks
   * it ({@link KafkaRefusals#notAuthorized(KafkaClients, Throwable, UnaryOperator)}); exit status
   * 2.
   *
   * @param needs the ACL operation the work needs on a resource a broker refused ({@code group g},
   *     {@code topic t}, {@code the cluster}); null for work that needs none
   */
  static int within(
      Map<String, String> env,
      String command,
      Path commandConfig,
      UnaryOperator<String> needs,
      PrintWriter out,
      Work work)
      throws Exception {
    try (ExternalServers servers = from(env, command, commandConfig)) {
      try {
        return work.on(servers, out);
      } catch (Exception e) {
        throw needs == null
            ? e
            : KafkaRefusals.notAuthorized(servers.kafka(), e, needs)
                .<Exception>map(m -> m)
                .orElse(e);
      }
    }
  }

  /**
   * Runs a command's body; any failure becomes one sentence on stderr: status 2 for bad input or a
   * refusal (nothing was changed), 1 for a failure on the way (details in the log file). Errors in
   * the options themselves ({@link CommandLine.ParameterException}) are left to picocli.
   */
  static int run(CommandLine cli, String command, Callable<Integer> body) {
    PrintWriter err = cli.getErr();
    try {
      return body.call();
    } catch (CommandLine.ParameterException e) {
      throw e;
    } catch (OrdinalException e) {
      if (e.exitStatus() == OrdinalException.REFUSED) {
        log.info("{} refused: {}", command, e.getMessage());
      } else {
        log.warn("{} failed", command, e);
      }
      return fail(err, e.getMessage(), e.exitStatus());
    } catch (KafkaException e) {
      log.warn("{} failed", command, e);
      return fail(err, "Kafka refused the request: " + firstLine(e) + ".", 1);
    } catch (DataAccessException e) {
      log.warn("{} failed", command, e);
      return fail(err, "PostgreSQL refused the request: " + firstLine(e) + ".", 1);
    } catch (Exception e) {
      log.warn("{} failed", command, e);
      return fail(
          err, command + " failed: " + firstLine(e) + " (the log file has the details).", 1);
    }
  }

  private static int fail(PrintWriter err, String sentence, int status) {
    err.println("ordinal: " + sentence);
    err.flush();
    return status;
  }

  private static String firstLine(Throwable e) {
    String m = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
    int nl = m.indexOf('\n');
    return (nl < 0 ? m : m.substring(0, nl)).replaceAll("[.]$", "");
  }
}

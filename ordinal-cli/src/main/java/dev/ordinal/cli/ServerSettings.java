package dev.ordinal.cli;

import dev.ordinal.messaging.ConfigurationException;
import dev.ordinal.messaging.db.DatabaseSettings;
import dev.ordinal.messaging.kafka.KafkaClients;
import java.nio.file.Path;
import java.util.Map;

/**
 * The servers a command acts on, read from the settings only: {@code ORDINAL_DB_URL}, {@code
 * ORDINAL_DB_USER}, {@code ORDINAL_DB_PASSWORD}, {@code ORDINAL_KAFKA_BOOTSTRAP} and {@code
 * ORDINAL_KAFKA_CONFIG}, or {@code db.url}, {@code db.user}, {@code db.password}, {@code
 * kafka.bootstrap} and {@code kafka.config} in the {@code ORDINAL_CONFIG} file ({@link Settings}).
 * No command of the product starts servers of its own: with none configured it refuses, and {@code
 * ./ordinal up} starts a local stack to point it at.
 *
 * @param dbUrl the PostgreSQL JDBC URL, or null when none is set
 * @param dbUser the PostgreSQL user ({@code postgres} when none is set)
 * @param dbPassword the PostgreSQL password; never printed
 * @param kafkaBootstrap the Kafka bootstrap servers, or null when none is set
 * @param kafkaConfig the Kafka client properties file ({@link KafkaClients}), or null when none is
 *     set
 */
public record ServerSettings(
    String dbUrl, String dbUser, String dbPassword, String kafkaBootstrap, String kafkaConfig) {
  public static final String ENV_DB_URL = "ORDINAL_DB_URL";
  public static final String ENV_DB_USER = "ORDINAL_DB_USER";
  public static final String ENV_DB_PASSWORD = "ORDINAL_DB_PASSWORD";
  public static final String ENV_KAFKA_BOOTSTRAP = "ORDINAL_KAFKA_BOOTSTRAP";
  public static final String ENV_KAFKA_CONFIG = KafkaClients.FILE_SETTING;

  /** The option of the operator commands that names a Kafka client properties file. */
  public static final String COMMAND_CONFIG = "--command-config";

  /**
   * The servers {@code env} and the {@code ORDINAL_CONFIG} file it names configure, each one
   * possibly absent.
   *
   * @throws ConfigurationException when {@code ORDINAL_CONFIG} names a file that cannot be read
   */
  public static ServerSettings from(Map<String, String> env) {
    Map<String, String> all = Settings.environment(env);
    return new ServerSettings(
        blankToNull(all.get(ENV_DB_URL)),
        all.getOrDefault(ENV_DB_USER, "postgres"),
        all.getOrDefault(ENV_DB_PASSWORD, ""),
        blankToNull(all.get(ENV_KAFKA_BOOTSTRAP)),
        blankToNull(all.get(ENV_KAFKA_CONFIG)));
  }

  /** True when a PostgreSQL server is configured. */
  public boolean hasDatabase() {
    return dbUrl != null;
  }

  /** True when a Kafka cluster is configured. */
  public boolean hasKafka() {
    return kafkaBootstrap != null;
  }

  /**
   * The PostgreSQL server (no connection is made).
   *
   * @param command the command that needs it, for the refusal
   * @throws ConfigurationException when none is configured
   */
  public DatabaseSettings database(String command) {
    if (dbUrl == null) {
      throw missing(
          command,
          "a PostgreSQL server",
          ENV_DB_URL + " (with " + ENV_DB_USER + " and " + ENV_DB_PASSWORD + ")",
          "db.url");
    }
    return new DatabaseSettings(dbUrl, dbUser, dbPassword);
  }

  /**
   * The Kafka cluster, with the client properties of the file {@code ORDINAL_KAFKA_CONFIG} names
   * (no connection is made).
   *
   * @param command the command that needs it, for the refusal
   * @throws ConfigurationException when no bootstrap servers are configured, or the file cannot be
   *     read or holds a property that is refused ({@link KafkaClients#fromFile})
   */
  public KafkaClients kafka(String command) {
    return kafka(command, null);
  }

  /**
   * The Kafka cluster, with the client properties of {@code commandConfig} when given (an operator
   * command's {@value #COMMAND_CONFIG}), else of the file {@code ORDINAL_KAFKA_CONFIG} names.
   *
   * @throws ConfigurationException as {@link #kafka(String)}
   */
  public KafkaClients kafka(String command, Path commandConfig) {
    if (kafkaBootstrap == null) {
      throw missing(command, "a Kafka cluster", ENV_KAFKA_BOOTSTRAP, "kafka.bootstrap");
    }
    if (commandConfig != null) {
      return KafkaClients.fromFile(kafkaBootstrap, commandConfig, COMMAND_CONFIG);
    }
    if (kafkaConfig != null) {
      return KafkaClients.fromFile(kafkaBootstrap, Path.of(kafkaConfig), ENV_KAFKA_CONFIG);
    }
    return KafkaClients.of(kafkaBootstrap);
  }

  /**
   * Both servers, checked together so that one sentence names every missing setting.
   *
   * @throws ConfigurationException when either is not configured
   */
  public ServerSettings requireBoth(String command) {
    if (dbUrl == null && kafkaBootstrap == null) {
      throw missing(
          command,
          "a PostgreSQL server and a Kafka cluster",
          ENV_DB_URL
              + " (with "
              + ENV_DB_USER
              + " and "
              + ENV_DB_PASSWORD
              + ") and "
              + ENV_KAFKA_BOOTSTRAP,
          "db.url and kafka.bootstrap");
    }
    database(command);
    if (kafkaBootstrap == null) {
      kafka(command);
    }
    return this;
  }

  private static ConfigurationException missing(
      String command, String what, String variables, String keys) {
    return new ConfigurationException(
        command
            + " needs "
            + what
            + ": set "
            + variables
            + " or "
            + keys
            + " in the "
            + Settings.ENV_CONFIG
            + " file (./ordinal up starts a local stack to point it at).");
  }

  private static String blankToNull(String s) {
    return s == null || s.isBlank() ? null : s.trim();
  }

  @Override
  public String toString() {
    return "ServerSettings[dbUrl="
        + (dbUrl == null ? null : DatabaseSettings.redact(dbUrl))
        + ", dbUser="
        + dbUser
        + ", dbPassword=***, kafkaBootstrap="
        + kafkaBootstrap
        + ", kafkaConfig="
        + kafkaConfig
        + "]";
  }
}

package dev.ordinal.cli;

import dev.ordinal.messaging.ConfigurationException;
import dev.ordinal.messaging.db.DatabaseSettings;
import java.util.Map;

/**
 * The servers a command acts on, read from the settings only: {@code ORDINAL_DB_URL}, {@code
 * ORDINAL_DB_USER}, {@code ORDINAL_DB_PASSWORD} and {@code ORDINAL_KAFKA_BOOTSTRAP}, or {@code
 * db.url}, {@code db.user}, {@code db.password} and {@code kafka.bootstrap} in the {@code
 * ORDINAL_CONFIG} file ({@link Settings}). No command of the product starts servers of its own:
 * with none configured it refuses, and {@code ./ordinal up} starts a local stack to point it at.
 *
 * @param dbUrl the PostgreSQL JDBC URL, or null when none is set
 * @param dbUser the PostgreSQL user ({@code postgres} when none is set)
 * @param dbPassword the PostgreSQL password; never printed
 * @param kafkaBootstrap the Kafka bootstrap servers, or null when none is set
 */
public record ServerSettings(
    String dbUrl, String dbUser, String dbPassword, String kafkaBootstrap) {
  public static final String ENV_DB_URL = "ORDINAL_DB_URL";
  public static final String ENV_DB_USER = "ORDINAL_DB_USER";
  public static final String ENV_DB_PASSWORD = "ORDINAL_DB_PASSWORD";
  public static final String ENV_KAFKA_BOOTSTRAP = "ORDINAL_KAFKA_BOOTSTRAP";

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
        blankToNull(all.get(ENV_KAFKA_BOOTSTRAP)));
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
   * The Kafka bootstrap servers.
   *
   * @param command the command that needs them, for the refusal
   * @throws ConfigurationException when none are configured
   */
  public String kafka(String command) {
    if (kafkaBootstrap == null) {
      throw missing(command, "a Kafka cluster", ENV_KAFKA_BOOTSTRAP, "kafka.bootstrap");
    }
    return kafkaBootstrap;
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
    kafka(command);
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
        + "]";
  }
}

package dev.ordinal.lab.devstack;

import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * How to get a PostgreSQL server and a Kafka broker, parsed once and validated.
 *
 * <p>From the environment: {@code ORDINAL_STACK} ({@code embedded}, the default, {@code external}
 * or {@code testcontainers}); {@code ORDINAL_DB_URL}, {@code ORDINAL_DB_USER}, {@code
 * ORDINAL_DB_PASSWORD} and {@code ORDINAL_KAFKA_BOOTSTRAP} for external servers (giving a URL or a
 * bootstrap address alone selects {@code external}); {@code ORDINAL_HOME} for the embedded stack's
 * fixed data directory (default {@code ~/.ordinal}).
 *
 * @param mode where the servers come from
 * @param dataDir the embedded stack's data directory; its stale processes are cleaned up on start
 * @param keepData keep the embedded stack's data from the previous run instead of starting clean
 * @param durable run the embedded PostgreSQL with {@code fsync=on} (benchmarks); tests and the demo
 *     run with fsync off
 * @param jdbcUrl external PostgreSQL, {@code jdbc:postgresql://host:port/db}
 * @param dbUser external PostgreSQL user
 * @param dbPassword external PostgreSQL password; never printed
 * @param kafkaBootstrap external Kafka bootstrap servers, {@code host:port[,host:port]}
 */
public record StackConfig(
    StackMode mode,
    Path dataDir,
    boolean keepData,
    boolean durable,
    String jdbcUrl,
    String dbUser,
    String dbPassword,
    String kafkaBootstrap) {

  public static final String ENV_STACK = "ORDINAL_STACK";
  public static final String ENV_HOME = "ORDINAL_HOME";
  public static final String ENV_DB_URL = "ORDINAL_DB_URL";
  public static final String ENV_DB_USER = "ORDINAL_DB_USER";
  public static final String ENV_DB_PASSWORD = "ORDINAL_DB_PASSWORD";
  public static final String ENV_KAFKA_BOOTSTRAP = "ORDINAL_KAFKA_BOOTSTRAP";

  public static final Path DEFAULT_HOME = Path.of(System.getProperty("user.home"), ".ordinal");

  public StackConfig {
    Objects.requireNonNull(mode, "mode");
    Objects.requireNonNull(dataDir, "dataDir");
    if (mode == StackMode.EXTERNAL) {
      if (blank(jdbcUrl) || blank(kafkaBootstrap)) {
        throw new StackException(
            "An external stack needs both "
                + ENV_DB_URL
                + " and "
                + ENV_KAFKA_BOOTSTRAP
                + "; set the missing one or unset both to use the embedded stack.");
      }
      if (!jdbcUrl.startsWith("jdbc:postgresql://")) {
        throw new StackException(
            ENV_DB_URL + " must look like jdbc:postgresql://host:port/database; fix its value.");
      }
    }
  }

  /** The embedded stack in {@code dataDir}, started clean. */
  public static StackConfig embedded(Path dataDir) {
    return new StackConfig(StackMode.EMBEDDED, dataDir, false, false, null, null, null, null);
  }

  /** Reads the {@code ORDINAL_*} variables; see the type's documentation. */
  public static StackConfig fromEnvironment(Map<String, String> env) {
    String url = env.get(ENV_DB_URL);
    String bootstrap = env.get(ENV_KAFKA_BOOTSTRAP);
    String modeName = env.get(ENV_STACK);
    StackMode mode;
    if (!blank(modeName)) {
      try {
        mode = StackMode.valueOf(modeName.trim().toUpperCase(Locale.ROOT));
      } catch (IllegalArgumentException e) {
        throw new StackException(
            ENV_STACK
                + "="
                + modeName
                + " is not a stack; use embedded, external or testcontainers.");
      }
    } else {
      mode = blank(url) && blank(bootstrap) ? StackMode.EMBEDDED : StackMode.EXTERNAL;
    }
    String home = env.get(ENV_HOME);
    Path dataDir = blank(home) ? DEFAULT_HOME.resolve("stack") : Path.of(home).resolve("stack");
    return new StackConfig(
        mode,
        dataDir,
        false,
        false,
        url,
        env.getOrDefault(ENV_DB_USER, "postgres"),
        env.getOrDefault(ENV_DB_PASSWORD, ""),
        bootstrap);
  }

  public StackConfig withKeepData(boolean keep) {
    return new StackConfig(
        mode, dataDir, keep, durable, jdbcUrl, dbUser, dbPassword, kafkaBootstrap);
  }

  public StackConfig withDataDir(Path dir) {
    return new StackConfig(
        mode, dir, keepData, durable, jdbcUrl, dbUser, dbPassword, kafkaBootstrap);
  }

  public StackConfig withDurable(boolean fsync) {
    return new StackConfig(
        mode, dataDir, keepData, fsync, jdbcUrl, dbUser, dbPassword, kafkaBootstrap);
  }

  private static boolean blank(String s) {
    return s == null || s.isBlank();
  }

  @Override
  public String toString() {
    return "StackConfig[mode="
        + mode
        + ", dataDir="
        + dataDir
        + ", durable="
        + durable
        + ", jdbcUrl="
        + jdbcUrl
        + ", dbUser="
        + dbUser
        + ", dbPassword=***, kafkaBootstrap="
        + kafkaBootstrap
        + "]";
  }
}

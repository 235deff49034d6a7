package dev.ordinal.messaging.db;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.ordinal.messaging.ConfigurationException;
import dev.ordinal.runtime.settings.Check;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Properties;
import org.postgresql.Driver;

/**
 * Where a service's PostgreSQL is, from {@code ORDINAL_DB_URL}, {@code ORDINAL_DB_USER} and {@code
 * ORDINAL_DB_PASSWORD}. The password is passed to drivers and never printed: {@link #toString()}
 * and {@link #redactedUrl()} hide it.
 */
public record DatabaseSettings(String jdbcUrl, String user, String password) {
  public static final String URL_SETTING = "ORDINAL_DB_URL";
  public static final String USER_SETTING = "ORDINAL_DB_USER";
  public static final String PASSWORD_SETTING = "ORDINAL_DB_PASSWORD";

  /** What a service's schema may be called: a PostgreSQL name that needs no quotes. */
  public static final Check<String> SCHEMA_NAME =
      Check.matches("[a-z_][a-z0-9_]{0,62}", "a lower-case PostgreSQL name (letters, digits, '_')");

  public DatabaseSettings {
    Objects.requireNonNull(jdbcUrl, URL_SETTING);
    if (Driver.parseURL(jdbcUrl, new Properties()) == null) {
      throw new ConfigurationException(
          URL_SETTING
              + " is not a PostgreSQL JDBC URL (expected jdbc:postgresql://host:port/database): "
              + redact(jdbcUrl));
    }
    user = user == null ? "postgres" : user;
    password = password == null ? "" : password;
  }

  /** The same server and database, with {@code schema} first on the search path. */
  public DatabaseSettings withSchema(String schema) {
    String base = withoutParameter(jdbcUrl, "currentSchema");
    return new DatabaseSettings(
        base + (base.contains("?") ? "&" : "?") + "currentSchema=" + schema, user, password);
  }

  /**
   * These settings bound to the primary, for clients that write or stream: a URL with several hosts
   * gets {@code targetServerType=primary} (pgjdbc then skips standbys and, after a failover, finds
   * the promoted server) and {@code hostRecheckSeconds=2} unless it sets them; one host is left as
   * it is.
   *
   * @throws ConfigurationException when the URL asks for another server type (a standby cannot take
   *     writes, advisory locks or a logical replication slot's stream)
   */
  public DatabaseSettings forPrimary() {
    String type = parsed().getProperty("targetServerType");
    if (type != null && !type.equals("primary") && !type.equals("master")) {
      throw new ConfigurationException(
          URL_SETTING
              + " sets targetServerType="
              + type
              + ", but this service writes and must reach the primary: use"
              + " targetServerType=primary.");
    }
    if (hosts().size() < 2 || type != null) {
      return this;
    }
    String extra =
        "targetServerType=primary"
            + (parsed().getProperty("hostRecheckSeconds") == null ? "&hostRecheckSeconds=2" : "");
    return new DatabaseSettings(
        jdbcUrl + (jdbcUrl.contains("?") ? "&" : "?") + extra, user, password);
  }

  /** The URL's servers, {@code host:port} each, in the order pgjdbc tries them. */
  public List<String> hosts() {
    String[] hosts = parsed().getProperty("PGHOST").split(",");
    String[] ports = parsed().getProperty("PGPORT").split(",");
    List<String> out = new ArrayList<>();
    for (int i = 0; i < hosts.length; i++) {
      out.add(hosts[i] + ":" + ports[Math.min(i, ports.length - 1)]);
    }
    return List.copyOf(out);
  }

  /** The URL with any {@code password} parameter taken out (it is passed as a property). */
  public String urlWithoutPassword() {
    return withoutParameter(jdbcUrl, "(?i)password");
  }

  /**
   * The URL without its {@code password} and {@code sslpassword} parameters: for a client that logs
   * the URL it is given and takes the secrets as properties ({@link #effectivePassword()}, {@link
   * #sslPassword()}).
   */
  public String urlWithoutPasswords() {
    return withoutParameter(jdbcUrl, "(?i)(ssl)?password");
  }

  /**
   * The URL's {@code sslpassword} (of an encrypted client key, {@code sslkey}), or null when it has
   * none.
   */
  public String sslPassword() {
    return parsed().getProperty("sslpassword");
  }

  /**
   * {@code url} without the parameter(s) whose name matches the regular expression {@code name}.
   */
  static String withoutParameter(String url, String name) {
    return url.replaceAll("([?&])" + name + "=[^&]*&?", "$1").replaceAll("[?&]$", "");
  }

  /** The password to connect with: the setting, else the URL's {@code password} parameter. */
  public String effectivePassword() {
    if (!password.isEmpty()) {
      return password;
    }
    String fromUrl = parsed().getProperty("password");
    return fromUrl == null ? "" : fromUrl;
  }

  public String host() {
    return parsed().getProperty("PGHOST").split(",")[0];
  }

  public int port() {
    return Integer.parseInt(parsed().getProperty("PGPORT").split(",")[0]);
  }

  public String database() {
    return parsed().getProperty("PGDBNAME");
  }

  /** A connection pool; the caller closes it. */
  public HikariDataSource pool(String name, int maxSize) {
    return pool(name, maxSize, Duration.ofSeconds(30));
  }

  /**
   * How long one statement of a service may run ({@code statement_timeout}) before PostgreSQL
   * cancels it: a service's statements are short, and one that hangs (a lock held by a forgotten
   * session, a plan gone wrong) must fail, be logged and be retried rather than hold a worker and
   * its connection forever.
   */
  public static final Duration STATEMENT_TIMEOUT = Duration.ofSeconds(30);

  /** How long a service's statement waits for a row or table lock ({@code lock_timeout}). */
  public static final Duration LOCK_TIMEOUT = Duration.ofSeconds(10);

  /**
   * A connection pool whose callers wait at most {@code connectionTimeout} for a connection (a
   * service's loops fail fast while the server is down, and their supervisor backs off); the caller
   * closes it. It starts even when the server does not answer.
   */
  public HikariDataSource pool(String name, int maxSize, Duration connectionTimeout) {
    return pool(name, maxSize, connectionTimeout, null);
  }

  /** As {@link #pool(String, int, Duration)}, with the pool's meters on {@code registry}. */
  public HikariDataSource pool(
      String name, int maxSize, Duration connectionTimeout, MeterRegistry registry) {
    HikariConfig config = config(name, maxSize, connectionTimeout);
    config.setMetricRegistry(registry);
    return new HikariDataSource(config);
  }

  /**
   * A service's pool: as {@link #pool(String, int, Duration)}, and every session it opens has
   * {@link #STATEMENT_TIMEOUT} and {@link #LOCK_TIMEOUT} (set when the connection is made; the
   * service's migrations run under the lock timeout, without the statement timeout: {@link
   * Migrations}).
   */
  public HikariDataSource servicePool(String name, int maxSize, Duration connectionTimeout) {
    return servicePool(name, maxSize, connectionTimeout, null);
  }

  /**
   * As {@link #servicePool(String, int, Duration)}, with the pool's meters ({@code
   * hikaricp_connections*}, tag {@code pool} = {@code name}) on {@code registry} (none when null).
   */
  public HikariDataSource servicePool(
      String name, int maxSize, Duration connectionTimeout, MeterRegistry registry) {
    HikariConfig config = config(name, maxSize, connectionTimeout);
    config.setMetricRegistry(registry);
    config.setConnectionInitSql(
        "SET statement_timeout = "
            + STATEMENT_TIMEOUT.toMillis()
            + "; SET lock_timeout = "
            + LOCK_TIMEOUT.toMillis());
    return new HikariDataSource(config);
  }

  private HikariConfig config(String name, int maxSize, Duration connectionTimeout) {
    HikariConfig config = new HikariConfig();
    config.setConnectionTimeout(connectionTimeout.toMillis());
    // start without a connection: the server may be restarting, the pool connects on first use
    config.setInitializationFailTimeout(-1);
    config.setPoolName(name);
    config.setJdbcUrl(jdbcUrl);
    config.setUsername(user);
    config.setPassword(password);
    config.setMaximumPoolSize(maxSize);
    config.setMinimumIdle(1);
    return config;
  }

  /** The URL without any password parameter in it. */
  public String redactedUrl() {
    return redact(jdbcUrl);
  }

  private Properties parsed() {
    return Driver.parseURL(jdbcUrl, new Properties());
  }

  public static String redact(String url) {
    return url.replaceAll("(?i)(password=)[^&]*", "$1***");
  }

  @Override
  public String toString() {
    return "DatabaseSettings[url=" + redactedUrl() + ", user=" + user + ", password=***]";
  }
}

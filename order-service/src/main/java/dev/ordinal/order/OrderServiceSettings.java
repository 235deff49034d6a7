package dev.ordinal.order;

import dev.ordinal.messaging.ConfigurationException;
import dev.ordinal.messaging.db.DatabaseSettings;
import dev.ordinal.messaging.outbox.OutboxRetentionConfig;
import dev.ordinal.messaging.outbox.OutboxRetentionMode;
import dev.ordinal.runtime.ManagementSettings;
import java.time.Duration;
import java.util.Objects;

/**
 * Everything order-service ({@link OrderServiceApp}) is started with, checked once: each problem is
 * one {@link ConfigurationException} sentence naming the option (see docs/OPERATIONS.md for the
 * environment variables and properties file keys that set the same).
 *
 * @param db the database; the service's schema is {@code schema}
 * @param schema the service's schema: orders, lines, idempotency keys, outbox
 * @param host the interface the HTTP API listens on; null for all
 * @param port the HTTP API's port; 0 picks a free one
 * @param poolSize database connections
 * @param httpThreads the most threads the HTTP API's Jetty pool runs requests on
 * @param outboxRetention what happens to published outbox rows
 * @param idempotencyKeyRetention how long an {@code Idempotency-Key} is remembered: a retry with
 *     the same key within it gets the first answer
 * @param management where health and metrics are served
 */
public record OrderServiceSettings(
    DatabaseSettings db,
    String schema,
    String host,
    int port,
    int poolSize,
    int httpThreads,
    OutboxRetentionConfig outboxRetention,
    Duration idempotencyKeyRetention,
    ManagementSettings management) {

  public static final String DEFAULT_SCHEMA = "orders";
  public static final int DEFAULT_POOL_SIZE = 16;

  /** Javalin's own default for Jetty's pool; {@code bench orders} compares it with fewer. */
  public static final int DEFAULT_HTTP_THREADS = 250;

  /**
   * Fewer threads than this may not leave Jetty one for a request once its selectors have theirs.
   */
  public static final int MIN_HTTP_THREADS = 8;

  public static final int MAX_HTTP_THREADS = 1000;
  public static final Duration DEFAULT_OUTBOX_RETENTION_AGE = Duration.ofHours(1);
  public static final Duration DEFAULT_IDEMPOTENCY_KEY_RETENTION = Duration.ofHours(24);
  public static final int DEFAULT_MANAGEMENT_PORT = 9410;

  public OrderServiceSettings {
    Objects.requireNonNull(db, "db");
    if (schema == null || !schema.matches("[a-z_][a-z0-9_]{0,62}")) {
      throw new ConfigurationException(
          "--schema must be a lower-case PostgreSQL name (letters, digits, '_'), not " + schema);
    }
    if (port < 0 || port > 65535) {
      throw new ConfigurationException("--port must be 0 to 65535, not " + port);
    }
    if (poolSize < 1 || poolSize > 200) {
      throw new ConfigurationException("--pool-size must be 1 to 200, not " + poolSize);
    }
    if (httpThreads < MIN_HTTP_THREADS || httpThreads > MAX_HTTP_THREADS) {
      throw new ConfigurationException(
          "--http-threads must be "
              + MIN_HTTP_THREADS
              + " to "
              + MAX_HTTP_THREADS
              + ", not "
              + httpThreads);
    }
    outboxRetention =
        outboxRetention == null
            ? OutboxRetentionConfig.of(OutboxRetentionMode.AFTER_AGE, DEFAULT_OUTBOX_RETENTION_AGE)
            : outboxRetention;
    if (idempotencyKeyRetention == null
        || idempotencyKeyRetention.isNegative()
        || idempotencyKeyRetention.isZero()) {
      throw new ConfigurationException(
          "--idempotency-key-retention must be positive, not " + idempotencyKeyRetention);
    }
    management =
        management == null ? ManagementSettings.local(DEFAULT_MANAGEMENT_PORT) : management;
  }

  /** The defaults: schema {@code orders}, port 8080, outbox rows kept 1 h, keys 24 h. */
  public static OrderServiceSettings defaults(DatabaseSettings db) {
    return new OrderServiceSettings(
        db,
        DEFAULT_SCHEMA,
        null,
        OrderHttpServer.DEFAULT_PORT,
        DEFAULT_POOL_SIZE,
        DEFAULT_HTTP_THREADS,
        null,
        DEFAULT_IDEMPOTENCY_KEY_RETENTION,
        null);
  }

  public OrderServiceSettings withSchema(String s) {
    return new OrderServiceSettings(
        db,
        s,
        host,
        port,
        poolSize,
        httpThreads,
        outboxRetention,
        idempotencyKeyRetention,
        management);
  }

  public OrderServiceSettings withPort(int p) {
    return new OrderServiceSettings(
        db,
        schema,
        host,
        p,
        poolSize,
        httpThreads,
        outboxRetention,
        idempotencyKeyRetention,
        management);
  }

  public OrderServiceSettings withHost(String h) {
    return new OrderServiceSettings(
        db,
        schema,
        h,
        port,
        poolSize,
        httpThreads,
        outboxRetention,
        idempotencyKeyRetention,
        management);
  }

  public OrderServiceSettings withPoolSize(int n) {
    return new OrderServiceSettings(
        db,
        schema,
        host,
        port,
        n,
        httpThreads,
        outboxRetention,
        idempotencyKeyRetention,
        management);
  }

  public OrderServiceSettings withHttpThreads(int n) {
    return new OrderServiceSettings(
        db, schema, host, port, poolSize, n, outboxRetention, idempotencyKeyRetention, management);
  }

  public OrderServiceSettings withOutboxRetention(OutboxRetentionConfig r) {
    return new OrderServiceSettings(
        db, schema, host, port, poolSize, httpThreads, r, idempotencyKeyRetention, management);
  }

  public OrderServiceSettings withIdempotencyKeyRetention(Duration d) {
    return new OrderServiceSettings(
        db, schema, host, port, poolSize, httpThreads, outboxRetention, d, management);
  }

  public OrderServiceSettings withManagement(ManagementSettings m) {
    return new OrderServiceSettings(
        db, schema, host, port, poolSize, httpThreads, outboxRetention, idempotencyKeyRetention, m);
  }
}

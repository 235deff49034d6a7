package dev.ordinal.billing;

import dev.ordinal.contracts.AggregateType;
import dev.ordinal.messaging.ConfigurationException;
import dev.ordinal.messaging.db.DatabaseSettings;
import dev.ordinal.runtime.ManagementSettings;
import java.net.URI;
import java.time.Duration;
import java.util.Objects;
import java.util.UUID;

/**
 * Everything one billing instance ({@link BillingApp}) is started with, checked once: each problem
 * is one {@link ConfigurationException} sentence naming the option ({@code --concurrency} is also
 * {@code ORDINAL_BILLING_CONCURRENCY} and {@code billing.concurrency} in a properties file; see
 * docs/OPERATIONS.md). Build with {@link #builder}.
 *
 * @param db billing's database (its schema is {@code schema})
 * @param kafkaBootstrap Kafka bootstrap servers
 * @param schema billing's schema: inbox, outbox, invoices, payments
 * @param topicPrefix reads {@code <prefix>.order} (interactive, first) and {@code
 *     <prefix>.order-bulk}
 * @param group the Kafka consumer group; instances in one group share the partitions
 * @param concurrency messages applied in parallel
 * @param issuerWorkers integrator calls in flight at most
 * @param issuerLease how long an invoice being sent is left alone before another instance looks it
 *     up by number and repairs it; longer than the integrator timeout
 * @param paymentLease how long a payment being charged is left alone before it is tried again
 * @param reconcileInterval how often the VOIDED and ERROR numbers not yet confirmed absent are
 *     checked at the integrator ({@link InvoiceReconciliation})
 * @param integrator the e-invoicing integrator's base URL
 * @param gateway the payment gateway's base URL
 * @param inboxRetention how long an inbox row is kept after it was applied
 * @param outboxRetention how long a row of billing's outbox ({@code InvoiceIssued}) is kept; the
 *     relay of schema {@code billing} reads it from the WAL long before
 * @param replayWindow the longest window operators may replay a topic over
 * @param allowShortRetention start even when the inbox retention does not cover the replay window
 *     or a topic's retention
 * @param sessionTimeout how long Kafka waits for a silent instance before giving its partitions to
 *     the others
 * @param instanceId this instance's name in logs
 * @param management where health and metrics are served
 */
public record BillingSettings(
    DatabaseSettings db,
    String kafkaBootstrap,
    String schema,
    String topicPrefix,
    String group,
    int concurrency,
    int issuerWorkers,
    Duration issuerLease,
    Duration paymentLease,
    Duration reconcileInterval,
    URI integrator,
    URI gateway,
    Duration inboxRetention,
    Duration outboxRetention,
    Duration replayWindow,
    boolean allowShortRetention,
    Duration sessionTimeout,
    String instanceId,
    ManagementSettings management) {

  public static final String DEFAULT_SCHEMA = "billing";
  public static final String DEFAULT_TOPIC_PREFIX = "ordinal";
  public static final String DEFAULT_GROUP = "ordinal-billing";
  public static final int DEFAULT_CONCURRENCY = 4;
  public static final int DEFAULT_ISSUER_WORKERS = 4;
  public static final Duration DEFAULT_ISSUER_LEASE = Duration.ofSeconds(30);
  public static final Duration DEFAULT_PAYMENT_LEASE = Duration.ofSeconds(30);
  public static final Duration DEFAULT_RECONCILE_INTERVAL = Duration.ofMinutes(1);
  public static final URI DEFAULT_INTEGRATOR = URI.create("http://localhost:8091");
  public static final URI DEFAULT_GATEWAY = URI.create("http://localhost:8092");
  public static final Duration DEFAULT_INBOX_RETENTION = Duration.ofDays(30);
  public static final Duration DEFAULT_OUTBOX_RETENTION = Duration.ofHours(1);
  public static final Duration DEFAULT_REPLAY_WINDOW = Duration.ofDays(7);
  public static final Duration DEFAULT_SESSION_TIMEOUT = Duration.ofSeconds(45);
  public static final int DEFAULT_MANAGEMENT_PORT = 9412;
  public static final int MAX_CONCURRENCY = 256;

  public BillingSettings {
    Objects.requireNonNull(db, "db");
    if (kafkaBootstrap == null || kafkaBootstrap.isBlank()) {
      throw new ConfigurationException(
          "Billing needs Kafka bootstrap servers: set ORDINAL_KAFKA_BOOTSTRAP.");
    }
    if (schema == null || !schema.matches("[a-z_][a-z0-9_]{0,62}")) {
      throw new ConfigurationException(
          "--schema must be a lower-case PostgreSQL name (letters, digits, '_'), not " + schema);
    }
    if (topicPrefix == null || !topicPrefix.matches("[a-zA-Z0-9._-]{1,200}")) {
      throw new ConfigurationException(
          "--topic-prefix must be letters, digits, '.', '_' or '-', not " + topicPrefix);
    }
    if (group == null || group.isBlank()) {
      throw new ConfigurationException("--group must not be empty");
    }
    if (concurrency < 1 || concurrency > MAX_CONCURRENCY) {
      throw new ConfigurationException(
          "--concurrency must be 1 to " + MAX_CONCURRENCY + ", not " + concurrency);
    }
    if (issuerWorkers < 1 || issuerWorkers > 256) {
      throw new ConfigurationException("--issuer-workers must be 1 to 256, not " + issuerWorkers);
    }
    if (issuerLease == null || issuerLease.compareTo(HttpEInvoiceIntegrator.DEFAULT_TIMEOUT) <= 0) {
      throw new ConfigurationException(
          "--issuer-lease must be longer than the integrator timeout ("
              + HttpEInvoiceIntegrator.DEFAULT_TIMEOUT
              + "), not "
              + issuerLease);
    }
    if (paymentLease == null || paymentLease.isNegative() || paymentLease.isZero()) {
      throw new ConfigurationException("--payment-lease must be positive, not " + paymentLease);
    }
    if (reconcileInterval == null || reconcileInterval.isNegative() || reconcileInterval.isZero()) {
      throw new ConfigurationException(
          "--reconcile-interval must be positive, not " + reconcileInterval);
    }
    integrator = url("--integrator-url", integrator);
    gateway = url("--gateway-url", gateway);
    if (inboxRetention == null || inboxRetention.isNegative() || inboxRetention.isZero()) {
      throw new ConfigurationException("--inbox-retention must be positive, not " + inboxRetention);
    }
    if (outboxRetention == null || outboxRetention.isNegative() || outboxRetention.isZero()) {
      throw new ConfigurationException(
          "--outbox-retention-age must be positive, not " + outboxRetention);
    }
    if (replayWindow == null || replayWindow.isNegative()) {
      throw new ConfigurationException("--replay-window must not be negative, not " + replayWindow);
    }
    if (sessionTimeout == null
        || sessionTimeout.compareTo(Duration.ofSeconds(6)) < 0
        || sessionTimeout.compareTo(Duration.ofMinutes(30)) > 0) {
      throw new ConfigurationException(
          "--session-timeout must be 6 s to 30 min, not " + sessionTimeout);
    }
    instanceId =
        instanceId == null || instanceId.isBlank()
            ? "billing-" + UUID.randomUUID().toString().substring(0, 8)
            : instanceId;
    management =
        management == null ? ManagementSettings.local(DEFAULT_MANAGEMENT_PORT) : management;
  }

  private static URI url(String option, URI u) {
    if (u != null
        && ("http".equals(u.getScheme()) || "https".equals(u.getScheme()))
        && u.getHost() != null) {
      return u;
    }
    throw new ConfigurationException(
        option + " must be an http(s) URL such as http://localhost:8091, not " + u);
  }

  /** The interactive order topic, served first. */
  public String interactiveTopic() {
    return AggregateType.ORDER.topic(topicPrefix);
  }

  /** The bulk order topic. */
  public String bulkTopic() {
    return AggregateType.ORDER_BULK.topic(topicPrefix);
  }

  /** Connections the instance needs at most: its workers, its issuer, and a few for the rest. */
  public int poolSize() {
    return Math.max(4, concurrency + 2 * issuerWorkers + 4);
  }

  /** Defaults for everything but the servers. */
  public static Builder builder(DatabaseSettings db, String kafkaBootstrap) {
    return new Builder(db, kafkaBootstrap);
  }

  /** A copy to change. */
  public Builder toBuilder() {
    Builder b = new Builder(db, kafkaBootstrap);
    b.schema = schema;
    b.topicPrefix = topicPrefix;
    b.group = group;
    b.concurrency = concurrency;
    b.issuerWorkers = issuerWorkers;
    b.issuerLease = issuerLease;
    b.paymentLease = paymentLease;
    b.reconcileInterval = reconcileInterval;
    b.integrator = integrator;
    b.gateway = gateway;
    b.inboxRetention = inboxRetention;
    b.outboxRetention = outboxRetention;
    b.replayWindow = replayWindow;
    b.allowShortRetention = allowShortRetention;
    b.sessionTimeout = sessionTimeout;
    b.instanceId = instanceId;
    b.management = management;
    return b;
  }

  /** Builds {@link BillingSettings}; every setter has the default named on the record. */
  public static final class Builder {
    private final DatabaseSettings db;
    private final String kafkaBootstrap;
    private String schema = DEFAULT_SCHEMA;
    private String topicPrefix = DEFAULT_TOPIC_PREFIX;
    private String group = DEFAULT_GROUP;
    private int concurrency = DEFAULT_CONCURRENCY;
    private int issuerWorkers = DEFAULT_ISSUER_WORKERS;
    private Duration issuerLease = DEFAULT_ISSUER_LEASE;
    private Duration paymentLease = DEFAULT_PAYMENT_LEASE;
    private Duration reconcileInterval = DEFAULT_RECONCILE_INTERVAL;
    private URI integrator = DEFAULT_INTEGRATOR;
    private URI gateway = DEFAULT_GATEWAY;
    private Duration inboxRetention = DEFAULT_INBOX_RETENTION;
    private Duration outboxRetention = DEFAULT_OUTBOX_RETENTION;
    private Duration replayWindow = DEFAULT_REPLAY_WINDOW;
    private boolean allowShortRetention;
    private Duration sessionTimeout = DEFAULT_SESSION_TIMEOUT;
    private String instanceId;
    private ManagementSettings management;

    private Builder(DatabaseSettings db, String kafkaBootstrap) {
      this.db = db;
      this.kafkaBootstrap = kafkaBootstrap;
    }

    public Builder schema(String s) {
      schema = s;
      return this;
    }

    public Builder topicPrefix(String p) {
      topicPrefix = p;
      return this;
    }

    public Builder group(String g) {
      group = g;
      return this;
    }

    public Builder concurrency(int n) {
      concurrency = n;
      return this;
    }

    public Builder issuerWorkers(int n) {
      issuerWorkers = n;
      return this;
    }

    public Builder issuerLease(Duration d) {
      issuerLease = d;
      return this;
    }

    public Builder paymentLease(Duration d) {
      paymentLease = d;
      return this;
    }

    public Builder reconcileInterval(Duration d) {
      reconcileInterval = d;
      return this;
    }

    public Builder integrator(URI u) {
      integrator = u;
      return this;
    }

    public Builder gateway(URI u) {
      gateway = u;
      return this;
    }

    public Builder inboxRetention(Duration d) {
      inboxRetention = d;
      return this;
    }

    public Builder outboxRetention(Duration d) {
      outboxRetention = d;
      return this;
    }

    public Builder replayWindow(Duration d) {
      replayWindow = d;
      return this;
    }

    public Builder allowShortRetention(boolean allow) {
      allowShortRetention = allow;
      return this;
    }

    public Builder sessionTimeout(Duration d) {
      sessionTimeout = d;
      return this;
    }

    public Builder instanceId(String id) {
      instanceId = id;
      return this;
    }

    public Builder management(ManagementSettings m) {
      management = m;
      return this;
    }

    /**
     * @throws ConfigurationException naming the first setting that is wrong
     */
    public BillingSettings build() {
      return new BillingSettings(
          db,
          kafkaBootstrap,
          schema,
          topicPrefix,
          group,
          concurrency,
          issuerWorkers,
          issuerLease,
          paymentLease,
          reconcileInterval,
          integrator,
          gateway,
          inboxRetention,
          outboxRetention,
          replayWindow,
          allowShortRetention,
          sessionTimeout,
          instanceId,
          management);
    }
  }
}

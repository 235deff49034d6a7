package dev.ordinal.billing;

import static dev.ordinal.messaging.ConfigurationException.check;

import dev.ordinal.contracts.AggregateType;
import dev.ordinal.messaging.ConfigChecks;
import dev.ordinal.messaging.ConfigurationException;
import dev.ordinal.messaging.db.DatabaseSettings;
import dev.ordinal.messaging.inbox.InboxConsumerConfig;
import dev.ordinal.messaging.inbox.InboxRetentionConfig;
import dev.ordinal.messaging.kafka.ContractHeaders;
import dev.ordinal.messaging.kafka.KafkaClients;
import dev.ordinal.messaging.kafka.Topics;
import dev.ordinal.messaging.outbox.OutboxRetentionConfig;
import dev.ordinal.messaging.outbox.OutboxRetentionMode;
import dev.ordinal.runtime.ManagementSettings;
import dev.ordinal.runtime.ServiceSettingsBuilder;
import dev.ordinal.runtime.settings.Check;
import dev.ordinal.runtime.settings.Durations;
import dev.ordinal.runtime.settings.Setting;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.UUID;

/**
 * Everything one billing instance ({@link BillingApp}) is started with, checked once by the compact
 * constructor: each problem is one {@link ConfigurationException} sentence naming the option, in
 * the words of its {@link Setting} ({@code --concurrency} is also {@code
 * ORDINAL_BILLING_CONCURRENCY} and {@code billing.concurrency} in a properties file; see
 * docs/OPERATIONS.md). Each setting is written once, in {@link #ALL}; build with {@link #builder},
 * change with {@link #toBuilder()}.
 *
 * @param db billing's database (its schema is {@code schema})
 * @param kafkaClients the Kafka cluster and the user's client properties
 * @param schema billing's schema: inbox, outbox, invoices, payments
 * @param topicPrefix reads {@code <prefix>.order} (interactive, first) and {@code
 *     <prefix>.order-bulk}
 * @param group the Kafka consumer group; instances in one group share the partitions
 * @param topicPartitions partitions of the order topics when billing creates them (an existing
 *     topic is used as it is): at most this many instances of a group work at once
 * @param concurrency messages applied in parallel
 * @param headers the headers the message id and event type are read from: Ordinal's, then
 *     CloudEvents' unless told otherwise
 * @param issuerWorkers integrator calls in flight at most
 * @param issuerLease how long an invoice being sent is left alone before another instance looks it
 *     up by number and repairs it; longer than the integrator timeout
 * @param paymentLease how long a payment being charged is left alone before it is tried again
 * @param reconcileInterval how often the integrator is asked about the numbers it should not hold
 *     and the gateway about the charges it should not hold ({@link InvoiceReconciliation}, {@link
 *     PaymentReconciliation})
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
    KafkaClients kafkaClients,
    String schema,
    String topicPrefix,
    String group,
    int topicPartitions,
    int concurrency,
    ContractHeaders headers,
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
  public static final String DEFAULT_TOPIC_PREFIX = Topics.DEFAULT_PREFIX;
  public static final String DEFAULT_GROUP = "ordinal-billing";
  public static final int DEFAULT_CONCURRENCY = 4;
  public static final Duration DEFAULT_PAYMENT_LEASE = PaymentCollector.LEASE;
  public static final Duration DEFAULT_RECONCILE_INTERVAL = Duration.ofMinutes(1);
  public static final URI DEFAULT_INTEGRATOR = URI.create("http://localhost:8091");
  public static final URI DEFAULT_GATEWAY = URI.create("http://localhost:8092");
  public static final Duration DEFAULT_SESSION_TIMEOUT = Duration.ofSeconds(45);
  public static final Duration MIN_SESSION_TIMEOUT = Duration.ofSeconds(6);
  public static final Duration MAX_SESSION_TIMEOUT = Duration.ofMinutes(30);
  public static final int DEFAULT_MANAGEMENT_PORT = 9412;

  private static final Check<URI> HTTP_URL =
      u ->
          ("http".equals(u.getScheme()) || "https".equals(u.getScheme())) && u.getHost() != null
              ? null
              : "must be an http(s) URL such as " + DEFAULT_INTEGRATOR + ", not " + u;

  public static final Setting<String> SCHEMA =
      Setting.string(
          "schema",
          DEFAULT_SCHEMA,
          "Billing's schema: inbox, outbox, invoices, payments",
          DatabaseSettings.SCHEMA_NAME);
  public static final Setting<String> TOPIC_PREFIX =
      Setting.string(
          "topic-prefix",
          DEFAULT_TOPIC_PREFIX,
          "Reads <prefix>.order (interactive, first) and <prefix>.order-bulk (bulk)",
          Topics.PREFIX);
  public static final Setting<String> GROUP =
      Setting.string(
          "group",
          DEFAULT_GROUP,
          "Kafka consumer group; instances in one group share the partitions",
          Check.notBlank());
  public static final Setting<Integer> PARTITIONS = Topics.PARTITIONS;
  public static final Setting<List<String>> MESSAGE_ID_HEADERS = ContractHeaders.MESSAGE_ID_HEADERS;
  public static final Setting<List<String>> EVENT_TYPE_HEADERS = ContractHeaders.EVENT_TYPE_HEADERS;
  public static final Setting<Integer> CONCURRENCY =
      InboxConsumerConfig.CONCURRENCY
          .withDefault(DEFAULT_CONCURRENCY)
          .withDescription(
              "Messages applied in parallel by this instance, 1 to "
                  + InboxConsumerConfig.MAX_CONCURRENCY);
  public static final Setting<Integer> ISSUER_WORKERS = InvoiceIssuerConfig.WORKERS;
  public static final Setting<Duration> ISSUER_LEASE = InvoiceIssuerConfig.LEASE;
  public static final Setting<Duration> PAYMENT_LEASE =
      Setting.duration(
          "payment-lease",
          DEFAULT_PAYMENT_LEASE,
          "How long a payment being charged is left alone before it is tried again; longer than"
              + " the gateway timeout of "
              + Durations.format(HttpPaymentGateway.DEFAULT_TIMEOUT)
              + ", since a charge is sent only while the lease covers it",
          Check.positive());
  public static final Setting<Duration> RECONCILE_INTERVAL =
      Setting.duration(
          "reconcile-interval",
          DEFAULT_RECONCILE_INTERVAL,
          "How often billing asks the integrator about numbers it should not hold (VOIDED or"
              + " ERROR here, past a series' counter) and the gateway about charges for payments"
              + " CANCELLED or FAILED here, each VOIDED number and settled payment again at growing"
              + " horizons up to a day; what they hold is logged and recorded for 'ordinal invoices"
              + " reconcile'",
          Check.positive());
  public static final Setting<URI> INTEGRATOR_URL =
      Setting.url("integrator-url", DEFAULT_INTEGRATOR, "The e-invoicing integrator", HTTP_URL);
  public static final Setting<URI> GATEWAY_URL =
      Setting.url("gateway-url", DEFAULT_GATEWAY, "The payment gateway", HTTP_URL);
  public static final Setting<Duration> INBOX_RETENTION = InboxRetentionConfig.RETENTION;
  public static final Setting<Duration> OUTBOX_RETENTION_AGE =
      OutboxRetentionConfig.RETENTION.withDescription(
          "How long a row of billing's outbox (InvoiceIssued) is kept; the relay of schema"
              + " billing reads it from the WAL at once");
  public static final Setting<Duration> REPLAY_WINDOW = InboxRetentionConfig.REPLAY_WINDOW;
  public static final Setting<Boolean> ALLOW_SHORT_RETENTION = InboxRetentionConfig.OVERRIDE;
  public static final Setting<Duration> SESSION_TIMEOUT =
      Setting.duration(
          "session-timeout",
          DEFAULT_SESSION_TIMEOUT,
          "How long Kafka waits for a silent instance before giving its partitions to the others",
          Check.between(MIN_SESSION_TIMEOUT, MAX_SESSION_TIMEOUT, "6 s to 30 min"));
  public static final Setting<String> INSTANCE_ID =
      Setting.optionalString(
          "instance-id",
          "random",
          "This instance's name in logs and Kafka's client id",
          Check.any());
  public static final Setting<Integer> MANAGEMENT_PORT =
      ManagementSettings.portSetting(DEFAULT_MANAGEMENT_PORT);
  public static final Setting<String> MANAGEMENT_HOST = ManagementSettings.HOST;

  /** Every setting of a billing instance: its options, variables and file keys. */
  public static final List<Setting<?>> ALL =
      List.of(
          SCHEMA,
          TOPIC_PREFIX,
          GROUP,
          PARTITIONS,
          CONCURRENCY,
          MESSAGE_ID_HEADERS,
          EVENT_TYPE_HEADERS,
          ISSUER_WORKERS,
          ISSUER_LEASE,
          PAYMENT_LEASE,
          RECONCILE_INTERVAL,
          INTEGRATOR_URL,
          GATEWAY_URL,
          INBOX_RETENTION,
          OUTBOX_RETENTION_AGE,
          REPLAY_WINDOW,
          ALLOW_SHORT_RETENTION,
          SESSION_TIMEOUT,
          INSTANCE_ID,
          MANAGEMENT_PORT,
          MANAGEMENT_HOST);

  public BillingSettings {
    // it writes invoices, its inbox and outbox: with several hosts, only the primary
    db = Objects.requireNonNull(db, "db").forPrimary();
    Objects.requireNonNull(kafkaClients, "kafkaClients");
    check(SCHEMA, schema);
    check(TOPIC_PREFIX, topicPrefix);
    check(GROUP, group);
    check(PARTITIONS, topicPartitions);
    check(CONCURRENCY, concurrency);
    Objects.requireNonNull(headers, "headers");
    issuerConfig(issuerWorkers, issuerLease);
    check(PAYMENT_LEASE, paymentLease);
    if (paymentLease.compareTo(HttpPaymentGateway.DEFAULT_TIMEOUT) <= 0) {
      // a charge is sent only while the claim's lease covers the call: never, here
      throw new ConfigurationException(
          PAYMENT_LEASE.option()
              + " must be longer than the gateway timeout ("
              + HttpPaymentGateway.DEFAULT_TIMEOUT
              + "), not "
              + paymentLease);
    }
    check(RECONCILE_INTERVAL, reconcileInterval);
    check(INTEGRATOR_URL, integrator);
    check(GATEWAY_URL, gateway);
    inboxRetentionConfig(inboxRetention, replayWindow, allowShortRetention);
    outboxRetentionConfig(outboxRetention);
    check(SESSION_TIMEOUT, sessionTimeout);
    instanceId =
        instanceId == null || instanceId.isBlank()
            ? "billing-" + UUID.randomUUID().toString().substring(0, 8)
            : instanceId;
    management =
        ManagementSettings.checked(management, MANAGEMENT_PORT, ConfigurationException::new);
  }

  /** The invoice issuer's configuration: {@link #issuerWorkers} calls, {@link #issuerLease}. */
  public InvoiceIssuerConfig issuerConfig() {
    return issuerConfig(issuerWorkers, issuerLease);
  }

  /** The inbox retention job's configuration, for billing's inbox consumer. */
  public InboxRetentionConfig inboxRetentionConfig() {
    return inboxRetentionConfig(inboxRetention, replayWindow, allowShortRetention);
  }

  /** The retention job of billing's outbox: rows older than {@link #outboxRetention}. */
  public OutboxRetentionConfig outboxRetentionConfig() {
    return outboxRetentionConfig(outboxRetention);
  }

  private static InvoiceIssuerConfig issuerConfig(int workers, Duration lease) {
    return InvoiceIssuerConfig.builder().workers(workers).lease(lease).build();
  }

  private static InboxRetentionConfig inboxRetentionConfig(
      Duration retention, Duration replayWindow, boolean override) {
    return InboxRetentionConfig.builder(BillingService.CONSUMER_NAME)
        .retention(retention)
        .maxReplayWindow(replayWindow)
        .override(override)
        .build();
  }

  private static OutboxRetentionConfig outboxRetentionConfig(Duration retention) {
    return OutboxRetentionConfig.of(OutboxRetentionMode.AFTER_AGE, retention);
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

  /** Every setting its default, on these servers, with no Kafka client properties of the user's. */
  public static Builder builder(DatabaseSettings db, String kafkaBootstrap) {
    return builder(db, KafkaClients.of(ConfigChecks.kafkaBootstrap(kafkaBootstrap, "Billing")));
  }

  /** Every setting its default, on these servers. */
  public static Builder builder(DatabaseSettings db, KafkaClients kafkaClients) {
    return new Builder(db, kafkaClients);
  }

  /** The Kafka bootstrap servers. */
  public String kafkaBootstrap() {
    return kafkaClients.bootstrapServers();
  }

  /** A copy to change. */
  public Builder toBuilder() {
    return builder(db, kafkaClients)
        .schema(schema)
        .topicPrefix(topicPrefix)
        .group(group)
        .topicPartitions(topicPartitions)
        .concurrency(concurrency)
        .headers(headers)
        .issuerWorkers(issuerWorkers)
        .issuerLease(issuerLease)
        .paymentLease(paymentLease)
        .reconcileInterval(reconcileInterval)
        .integrator(integrator)
        .gateway(gateway)
        .inboxRetention(inboxRetention)
        .outboxRetention(outboxRetention)
        .replayWindow(replayWindow)
        .allowShortRetention(allowShortRetention)
        .sessionTimeout(sessionTimeout)
        .instanceId(instanceId)
        .management(management);
  }

  /** Builds {@link BillingSettings}; a setting not set takes its default ({@link #ALL}). */
  public static final class Builder extends ServiceSettingsBuilder<Builder> {
    private final DatabaseSettings db;
    private final KafkaClients kafkaClients;

    private Builder(DatabaseSettings db, KafkaClients kafkaClients) {
      super(ALL, MANAGEMENT_PORT);
      this.db = db;
      this.kafkaClients = kafkaClients;
    }

    public Builder schema(String s) {
      return set(SCHEMA, s);
    }

    public Builder topicPrefix(String p) {
      return set(TOPIC_PREFIX, p);
    }

    public Builder group(String g) {
      return set(GROUP, g);
    }

    /** Partitions of the order topics when billing creates them. */
    public Builder topicPartitions(int n) {
      return set(PARTITIONS, n);
    }

    public Builder concurrency(int n) {
      return set(CONCURRENCY, n);
    }

    /** Where the message id and event type are read from. */
    public Builder headers(ContractHeaders h) {
      return set(MESSAGE_ID_HEADERS, h.messageId()).set(EVENT_TYPE_HEADERS, h.eventType());
    }

    public Builder issuerWorkers(int n) {
      return set(ISSUER_WORKERS, n);
    }

    public Builder issuerLease(Duration d) {
      return set(ISSUER_LEASE, d);
    }

    public Builder paymentLease(Duration d) {
      return set(PAYMENT_LEASE, d);
    }

    public Builder reconcileInterval(Duration d) {
      return set(RECONCILE_INTERVAL, d);
    }

    public Builder integrator(URI u) {
      return set(INTEGRATOR_URL, u);
    }

    public Builder gateway(URI u) {
      return set(GATEWAY_URL, u);
    }

    public Builder inboxRetention(Duration d) {
      return set(INBOX_RETENTION, d);
    }

    public Builder outboxRetention(Duration d) {
      return set(OUTBOX_RETENTION_AGE, d);
    }

    public Builder replayWindow(Duration d) {
      return set(REPLAY_WINDOW, d);
    }

    public Builder allowShortRetention(boolean allow) {
      return set(ALLOW_SHORT_RETENTION, allow);
    }

    public Builder sessionTimeout(Duration d) {
      return set(SESSION_TIMEOUT, d);
    }

    public Builder instanceId(String id) {
      return set(INSTANCE_ID, id);
    }

    /**
     * @throws ConfigurationException naming the first setting that is wrong
     */
    public BillingSettings build() {
      return new BillingSettings(
          db,
          kafkaClients,
          values.get(SCHEMA),
          values.get(TOPIC_PREFIX),
          values.get(GROUP),
          values.get(PARTITIONS),
          values.get(CONCURRENCY),
          new ContractHeaders(values.get(MESSAGE_ID_HEADERS), values.get(EVENT_TYPE_HEADERS)),
          values.get(ISSUER_WORKERS),
          values.get(ISSUER_LEASE),
          values.get(PAYMENT_LEASE),
          values.get(RECONCILE_INTERVAL),
          values.get(INTEGRATOR_URL),
          values.get(GATEWAY_URL),
          values.get(INBOX_RETENTION),
          values.get(OUTBOX_RETENTION_AGE),
          values.get(REPLAY_WINDOW),
          values.get(ALLOW_SHORT_RETENTION),
          values.get(SESSION_TIMEOUT),
          values.get(INSTANCE_ID),
          management());
    }
  }
}

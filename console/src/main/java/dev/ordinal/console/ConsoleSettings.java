package dev.ordinal.console;

import dev.ordinal.messaging.ConfigurationException;
import dev.ordinal.messaging.db.DatabaseSettings;
import dev.ordinal.messaging.kafka.KafkaClients;
import dev.ordinal.order.ApiAuth;
import dev.ordinal.runtime.ManagementSettings;
import dev.ordinal.runtime.settings.Check;
import dev.ordinal.runtime.settings.Setting;
import dev.ordinal.runtime.settings.SettingsBuilder;
import java.net.InetAddress;
import java.net.URI;
import java.util.List;
import java.util.Objects;

/**
 * Everything the console ({@link ConsoleServer}) is started with, checked once by the compact
 * constructor: each problem is one {@link ConfigurationException} sentence naming the option, in
 * the words of its {@link Setting}. Each setting is written once, in {@link #ALL}.
 *
 * @param db the PostgreSQL server of the outboxes, the slots, the invoices and the replay log
 * @param kafka the Kafka cluster whose consumer groups and dead-letter topics are shown
 * @param host the interface the page is served on
 * @param port its port; 0 picks a free one
 * @param outboxSchemas the schemas whose outbox is shown
 * @param billingSchema billing's schema: invoices, the gap audit and the replay log
 * @param services management URLs whose {@code GET /health/ready} is shown
 * @param auth how callers of the page's API are authenticated: the order API's {@link ApiAuth}
 * @param allowActions whether the page may re-drive and discard dead letters; read-only otherwise
 * @param management the console's own {@code /health/*} and {@code /metrics}
 */
public record ConsoleSettings(
    DatabaseSettings db,
    KafkaClients kafka,
    String host,
    int port,
    List<String> outboxSchemas,
    String billingSchema,
    List<URI> services,
    ApiAuth auth,
    boolean allowActions,
    ManagementSettings management) {
  public static final int DEFAULT_PORT = 9420;
  public static final int DEFAULT_MANAGEMENT_PORT = 9421;

  /** The scope a token needs to read the console ({@code GET /api/*}). */
  public static final String SCOPE_READ = "console:read";

  /** The scope a token needs for an action ({@code POST /api/*}), with --allow-actions. */
  public static final String SCOPE_ACT = "console:act";

  public static final Setting<String> HOST =
      Setting.string(
          "host",
          "127.0.0.1",
          "Interface the console listens on: 127.0.0.1 is this machine only, 0.0.0.0 every"
              + " interface",
          Check.notBlank());
  public static final Setting<Integer> PORT =
      Setting.integer(
          "port",
          DEFAULT_PORT,
          "Port of the page and of GET /api/pipe; 0 picks a free one",
          Check.range(0, 65535));
  public static final Setting<List<String>> OUTBOX_SCHEMAS =
      Setting.list(
          "outbox-schema",
          String.class,
          s -> s,
          List.of("orders", "billing"),
          "none",
          "Schema(s) whose outbox is shown, comma-separated or repeated",
          l -> schemasProblem(l));
  public static final Setting<String> BILLING_SCHEMA =
      Setting.string(
          "billing-schema",
          "billing",
          "Billing's schema: invoices by status, the gap audit and the replay log",
          DatabaseSettings.SCHEMA_NAME);
  public static final Setting<List<URI>> SERVICES =
      Setting.list(
          "service",
          URI.class,
          URI::create,
          List.of(),
          "none",
          "Management URL(s) of services whose GET /health/ready is shown"
              + " (http://host:port), comma-separated or repeated",
          l ->
              l.stream().anyMatch(u -> !"http".equals(u.getScheme()) || u.getHost() == null)
                  ? "must be http://host:port URLs, not " + l
                  : null);

  public static final Setting<String> AUTH =
      Setting.string(
          "auth",
          "none",
          "How callers of the page's API are authenticated, as the order API's: jwt (bearer tokens"
              + " of the --jwt-* and --jwks-* options, scope "
              + SCOPE_READ
              + " to read, "
              + SCOPE_ACT
              + " for actions) or none (needs --host on this machine)",
          Check.matches("jwt|none", "jwt or none"));
  public static final Setting<Boolean> ALLOW_ACTIONS =
      Setting.flag(
          "allow-actions",
          false,
          "Let the page re-drive and discard dead letters (dry run first, then execute; each"
              + " recorded in dlq_redrive_log); without it the console is read-only");

  public static final Setting<Integer> MANAGEMENT_PORT =
      ManagementSettings.portSetting(DEFAULT_MANAGEMENT_PORT);
  public static final Setting<String> MANAGEMENT_HOST = ManagementSettings.HOST;

  /** Every setting of the console: its options, variables and file keys. */
  public static final List<Setting<?>> ALL =
      List.of(
          HOST,
          PORT,
          OUTBOX_SCHEMAS,
          BILLING_SCHEMA,
          SERVICES,
          AUTH,
          ApiAuth.JWT_ISSUER,
          ApiAuth.JWT_AUDIENCE,
          ApiAuth.JWKS_FILE,
          ApiAuth.JWKS_URL,
          ApiAuth.JWT_CLOCK_SKEW,
          ALLOW_ACTIONS,
          MANAGEMENT_PORT,
          MANAGEMENT_HOST);

  public ConsoleSettings {
    Objects.requireNonNull(db, "db");
    Objects.requireNonNull(kafka, "kafka");
    check(HOST, host);
    check(PORT, port);
    check(OUTBOX_SCHEMAS, outboxSchemas);
    check(BILLING_SCHEMA, billingSchema);
    check(SERVICES, services);
    outboxSchemas = List.copyOf(outboxSchemas);
    services = List.copyOf(services);
    auth = auth == null ? ApiAuth.none() : auth;
    management =
        ManagementSettings.checked(management, MANAGEMENT_PORT, ConfigurationException::new);
    if (auth.isNone() && !isThisMachine(host)) {
      throw new ConfigurationException(
          "--host "
              + host
              + " serves the console beyond this machine: set --auth jwt (with --jwt-issuer,"
              + " --jwt-audience and --jwks-file or --jwks-url), or keep --host 127.0.0.1");
    }
  }

  /** Whether {@code host} is a loopback address (no name lookup: a name is not taken as one). */
  static boolean isThisMachine(String host) {
    String h = host.strip();
    if (h.equalsIgnoreCase("localhost")) {
      return true;
    }
    if (!h.matches("[0-9.]+|\\[?[0-9a-fA-F:]+]?")) {
      return false;
    }
    try {
      return InetAddress.getByName(h.replace("[", "").replace("]", "")).isLoopbackAddress();
    } catch (java.net.UnknownHostException e) {
      return false;
    }
  }

  private static <T> void check(Setting<T> setting, T value) {
    setting
        .problem(value)
        .ifPresent(
            p -> {
              throw new ConfigurationException(p);
            });
  }

  private static String schemasProblem(List<String> l) {
    if (l.isEmpty()) {
      return "must name a schema";
    }
    for (String s : l) {
      if (DatabaseSettings.SCHEMA_NAME.problem(s) != null) {
        return "must name lower-case PostgreSQL schemas (letters, digits, '_'), not " + s;
      }
    }
    return null;
  }

  /** Every setting its default, on these servers. */
  public static Builder builder(DatabaseSettings db, KafkaClients kafka) {
    return new Builder(db, kafka);
  }

  /** Builds {@link ConsoleSettings}; a setting not set takes its default ({@link #ALL}). */
  public static final class Builder extends SettingsBuilder<Builder> {
    private final DatabaseSettings db;
    private final KafkaClients kafka;

    private Builder(DatabaseSettings db, KafkaClients kafka) {
      super(ALL);
      this.db = db;
      this.kafka = kafka;
    }

    /**
     * @throws ConfigurationException naming the first setting that is wrong
     */
    public ConsoleSettings build() {
      return new ConsoleSettings(
          db,
          kafka,
          values.get(HOST),
          values.get(PORT),
          values.get(OUTBOX_SCHEMAS),
          values.get(BILLING_SCHEMA),
          values.get(SERVICES),
          ApiAuth.of(
              values.get(AUTH),
              values.get(ApiAuth.JWT_ISSUER),
              values.get(ApiAuth.JWT_AUDIENCE),
              values.get(ApiAuth.JWKS_FILE),
              values.get(ApiAuth.JWKS_URL),
              values.get(ApiAuth.JWT_CLOCK_SKEW)),
          values.get(ALLOW_ACTIONS),
          new ManagementSettings(values.get(MANAGEMENT_HOST), values.get(MANAGEMENT_PORT)));
    }
  }
}

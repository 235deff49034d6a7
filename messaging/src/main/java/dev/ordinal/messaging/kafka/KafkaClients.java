package dev.ordinal.messaging.kafka;

import dev.ordinal.messaging.ConfigurationException;
import dev.ordinal.messaging.Preflight;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.io.Reader;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.SaslConfigs;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Every Kafka client of Ordinal is made here, from one value: the bootstrap servers, the user's
 * client properties (a properties file: {@code security.protocol}, {@code sasl.*}, {@code ssl.*},
 * timeouts, config providers) and the name of the process that makes them (service and instance).
 *
 * <p>A client's properties are merged in this order, the later winning:
 *
 * <ol>
 *   <li>the user's properties;
 *   <li>what the calling site sets for its work (idempotence, {@code acks=all}, {@code
 *       read_committed}, its timeouts, its consumer group);
 *   <li>{@code bootstrap.servers} and {@code client.id}: {@code
 *       ordinal-<service>-<instance>-<purpose>}.
 * </ol>
 *
 * <p>What the user's file may not do is refused when it is read, in one sentence naming the key,
 * the file and what to do ({@link ConfigurationException}): weaken a guarantee ({@link
 * #GUARANTEES}: {@code acks} other than {@code all}, {@code enable.idempotence} other than {@code
 * true}, {@code isolation.level} other than {@code read_committed}, {@code enable.auto.commit}
 * other than {@code false}, {@code auto.offset.reset} other than {@code earliest}), or set what
 * each client sets itself ({@link #RESERVED}: the servers, client ids, groups, serializers). Any
 * other key passes through. A key the site also sets takes the site's value (logged, without the
 * value).
 *
 * <p>Secrets from a file or the environment: Kafka's own config providers resolve them when the
 * client is made ({@code config.providers=env}, {@code
 * config.providers.env.class=org.apache.kafka.common.config.provider.EnvVarConfigProvider}, {@code
 * sasl.jaas.config=${env:KAFKA_JAAS}}; {@code FileConfigProvider}, {@code
 * DirectoryConfigProvider}); the values here stay as written.
 *
 * <p>Secrets never appear in {@link #toString()} or in a refusal: every key whose {@link
 * ConfigDef.Type} is {@code PASSWORD} in a producer's, consumer's or admin client's definition,
 * {@code sasl.jaas.config}, and any other key that names a password, secret, token or credential is
 * shown as {@value #HIDDEN} ({@link #isSecret}).
 *
 * <p>Immutable and thread-safe.
 */
public final class KafkaClients {
  /** The variable naming the user's client properties file of a service. */
  public static final String FILE_SETTING = "ORDINAL_KAFKA_CONFIG";

  // Kafka Streams' name for its application (StreamsConfig.APPLICATION_ID_CONFIG; this module
  // does not depend on Kafka Streams)
  private static final String STREAMS_APPLICATION_ID = "application.id";

  /** How a secret is shown. */
  public static final String HIDDEN = "[hidden]";

  /**
   * The guarantees Ordinal's clients need, with the only value the user's file may give them:
   * idempotent producers acknowledged by every in-sync replica, consumers that read committed
   * records, commit themselves after the database and start a new group at the beginning.
   */
  public static final Map<String, String> GUARANTEES = guarantees();

  /** What each client sets itself, and the user's file may not. */
  public static final Set<String> RESERVED =
      Collections.unmodifiableSet(
          new TreeSet<>(
              Set.of(
                  CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG,
                  CommonClientConfigs.CLIENT_ID_CONFIG,
                  CommonClientConfigs.GROUP_ID_CONFIG,
                  CommonClientConfigs.GROUP_INSTANCE_ID_CONFIG,
                  ProducerConfig.TRANSACTIONAL_ID_CONFIG,
                  ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG,
                  ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG,
                  ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG,
                  ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG,
                  STREAMS_APPLICATION_ID)));

  private static final Set<String> PASSWORD_KEYS = passwordKeys();
  private static final Logger log = LoggerFactory.getLogger(KafkaClients.class);

  private final String bootstrapServers;
  private final Map<String, String> properties;
  private final String source;
  private final String service;
  private final String instance;
  private final MeterRegistry registry;

  private KafkaClients(
      String bootstrapServers,
      Map<String, String> properties,
      String source,
      String service,
      String instance,
      MeterRegistry registry) {
    this.bootstrapServers = bootstrapServers;
    this.properties = properties;
    this.source = source;
    this.service = service;
    this.instance = instance;
    this.registry = registry;
  }

  /**
   * Clients on {@code bootstrapServers} with no properties of the user's.
   *
   * @throws ConfigurationException when {@code bootstrapServers} is empty
   */
  public static KafkaClients of(String bootstrapServers) {
    return of(bootstrapServers, Map.of(), null);
  }

  /**
   * Clients on {@code bootstrapServers} with the user's {@code properties}.
   *
   * @param source where the properties come from, for the refusals and the log: {@code
   *     /etc/ordinal/kafka.properties (ORDINAL_KAFKA_CONFIG)}
   * @throws ConfigurationException when {@code bootstrapServers} is empty, or a property weakens a
   *     guarantee or is one each client sets itself: one sentence naming the key and {@code source}
   */
  public static KafkaClients of(
      String bootstrapServers, Map<String, String> properties, String source) {
    if (bootstrapServers == null || bootstrapServers.isBlank()) {
      throw new ConfigurationException(
          Preflight.KAFKA_SETTING
              + " is empty; set it to the Kafka bootstrap servers (host:port).");
    }
    String from = source == null ? "the Kafka client properties" : source;
    Map<String, String> checked = new TreeMap<>();
    (properties == null ? Map.<String, String>of() : properties)
        .forEach(
            (key, value) -> {
              String k = key.trim();
              String v = value == null ? "" : value.trim();
              checkKey(from, k, v);
              checked.put(k, v);
            });
    return new KafkaClients(
        bootstrapServers.trim(), Collections.unmodifiableMap(checked), source, null, null, null);
  }

  /**
   * Clients on {@code bootstrapServers} with the properties of {@code file}, which the setting
   * {@code setting} names.
   *
   * @param setting what named the file, for the refusals: {@code ORDINAL_KAFKA_CONFIG}, {@code
   *     --command-config}
   * @throws ConfigurationException when the file cannot be read, or a property of it is refused
   *     ({@link #of(String, Map, String)}); one sentence naming the file and the setting
   */
  public static KafkaClients fromFile(String bootstrapServers, Path file, String setting) {
    Properties p = new Properties();
    try (Reader r = Files.newBufferedReader(file)) {
      p.load(r);
    } catch (IOException | RuntimeException e) {
      String why =
          e instanceof NoSuchFileException
              ? "does not exist"
              : e instanceof AccessDeniedException
                  ? "may not be read by this user"
                  : "cannot be read (" + e.getMessage() + ")";
      throw new ConfigurationException(
          "The Kafka client properties file "
              + file
              + " ("
              + setting
              + ") "
              + why
              + "; fix "
              + setting
              + ".",
          e);
    }
    Map<String, String> properties = new HashMap<>();
    p.stringPropertyNames().forEach(k -> properties.put(k, p.getProperty(k)));
    return of(bootstrapServers, properties, file + " (" + setting + ")");
  }

  private static void checkKey(String from, String key, String value) {
    if (RESERVED.contains(key)) {
      throw new ConfigurationException(
          from
              + " sets "
              + key
              + ", which Ordinal sets for each client itself"
              + (key.equals(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG)
                  ? " from " + Preflight.KAFKA_SETTING
                  : "")
              + ": remove "
              + key
              + " from it.");
    }
    String required = GUARANTEES.get(key);
    if (required != null && !same(key, required, value)) {
      throw new ConfigurationException(
          from
              + " sets "
              + key
              + "="
              + shown(key, value)
              + ", but Ordinal's clients need "
              + key
              + "="
              + required
              + ": remove the key or set it to "
              + required
              + ".");
    }
  }

  /**
   * The same clients, named for {@code service} and its {@code instance}: their client ids are
   * {@code ordinal-<service>-<instance>-<purpose>}.
   *
   * @param instance the instance's name; null for none
   */
  public KafkaClients forService(String service, String instance) {
    return new KafkaClients(
        bootstrapServers,
        properties,
        source,
        Objects.requireNonNull(service, "service"),
        instance,
        registry);
  }

  /**
   * The same clients, each with its own metrics bound to {@code registry} ({@code
   * kafka_producer_*}, {@code kafka_consumer_*}, {@code kafka_admin_client_*}, tagged with the
   * client id) until it is closed.
   */
  public KafkaClients withMetrics(MeterRegistry registry) {
    return new KafkaClients(
        bootstrapServers,
        properties,
        source,
        service,
        instance,
        Objects.requireNonNull(registry, "registry"));
  }

  /** The registry the clients' metrics are bound to; null when they are not. */
  public MeterRegistry registry() {
    return registry;
  }

  /** The bootstrap servers, {@code host:port[,host:port]}. */
  public String bootstrapServers() {
    return bootstrapServers;
  }

  /** The user's properties as written (config provider references unresolved); never log them. */
  public Map<String, String> properties() {
    return properties;
  }

  /** Where the user's properties come from ({@code <file> (<setting>)}); null when they do not. */
  public String source() {
    return source;
  }

  /** The client id of the client made for {@code purpose}. */
  public String clientId(String purpose) {
    StringBuilder id = new StringBuilder("ordinal");
    if (service != null) {
      id.append('-').append(service);
    }
    if (instance != null && !instance.isBlank()) {
      id.append('-').append(instance);
    }
    return id.append('-').append(purpose).toString();
  }

  /**
   * An admin client's properties: the user's, {@code site}'s, the servers and the client id.
   *
   * @param purpose what it is for, the end of its client id: {@code health}, {@code topics}
   * @param site what the calling site sets (timeouts)
   */
  public Map<String, Object> adminProperties(String purpose, Map<String, ?> site) {
    return merge(purpose, site);
  }

  /**
   * A producer's properties; {@code site} holds its guarantees (idempotence, acks) and timeouts.
   */
  public Map<String, Object> producerProperties(String purpose, Map<String, ?> site) {
    return merge(purpose, site);
  }

  /**
   * A consumer's properties; {@code site} holds its guarantees ({@code read_committed}, no auto
   * commit), its group and timeouts.
   */
  public Map<String, Object> consumerProperties(String purpose, Map<String, ?> site) {
    return merge(purpose, site);
  }

  /**
   * A Kafka Streams application's properties: the user's (which Streams hands to each of its
   * clients), {@code site}'s, the servers, {@code application.id} and the client id, which Streams
   * uses as the prefix of its clients' ids.
   */
  public Map<String, Object> streamsProperties(
      String applicationId, String purpose, Map<String, ?> site) {
    Map<String, Object> p = merge(purpose, site);
    p.put(STREAMS_APPLICATION_ID, applicationId);
    return p;
  }

  /** An admin client made of {@link #adminProperties}; the caller closes it. */
  public Admin admin(String purpose, Map<String, ?> site) {
    return registry == null
        ? Admin.create(adminProperties(purpose, site))
        : MeteredClients.admin(adminProperties(purpose, site), registry);
  }

  /** A producer made of {@link #producerProperties}; the caller closes it. */
  public <K, V> KafkaProducer<K, V> producer(
      String purpose, Map<String, ?> site, Serializer<K> keys, Serializer<V> values) {
    return registry == null
        ? new KafkaProducer<>(producerProperties(purpose, site), keys, values)
        : MeteredClients.producer(producerProperties(purpose, site), keys, values, registry);
  }

  /** A consumer made of {@link #consumerProperties}; the caller closes it. */
  public <K, V> KafkaConsumer<K, V> consumer(
      String purpose, Map<String, ?> site, Deserializer<K> keys, Deserializer<V> values) {
    return registry == null
        ? new KafkaConsumer<>(consumerProperties(purpose, site), keys, values)
        : MeteredClients.consumer(consumerProperties(purpose, site), keys, values, registry);
  }

  private Map<String, Object> merge(String purpose, Map<String, ?> site) {
    Map<String, Object> p = new HashMap<>(properties);
    site.forEach(
        (key, value) -> {
          String user = properties.get(key);
          // a guarantee the file gives was checked when it was read: it can only equal the site's
          if (user != null && !same(key, user, String.valueOf(value))) {
            log.info(
                "{} sets {}, which the {} client sets for its work: the client's value is used",
                source == null ? "The Kafka client properties" : source,
                key,
                clientId(purpose));
          }
          p.put(key, value);
        });
    p.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
    p.put(CommonClientConfigs.CLIENT_ID_CONFIG, clientId(purpose));
    return p;
  }

  /** True when {@code a} and {@code b} mean the same value of {@code key}. */
  private static boolean same(String key, String a, String b) {
    return normal(key, a).equals(normal(key, b));
  }

  private static String normal(String key, String value) {
    String v = value.trim().toLowerCase(Locale.ROOT);
    return key.equals(ProducerConfig.ACKS_CONFIG) && v.equals("-1") ? "all" : v;
  }

  /**
   * True when the value of {@code key} is a secret: a {@code PASSWORD} of Kafka's producer,
   * consumer or admin client definitions (also under a prefix such as Kafka Streams' {@code
   * producer.}), {@code sasl.jaas.config}, or a key naming a password, secret, token or credential.
   */
  public static boolean isSecret(String key) {
    String k = key.toLowerCase(Locale.ROOT);
    if (k.contains("password")
        || k.contains("secret")
        || k.contains("token")
        || k.contains("credential")
        || k.contains("jaas")) {
      return true;
    }
    for (String secret : PASSWORD_KEYS) {
      if (k.equals(secret) || k.endsWith("." + secret)) {
        return true;
      }
    }
    return false;
  }

  /** {@code value} as it may be shown: {@value #HIDDEN} for a secret key. */
  public static String shown(String key, Object value) {
    return isSecret(key) ? HIDDEN : String.valueOf(value);
  }

  private static Map<String, String> guarantees() {
    Map<String, String> g = new LinkedHashMap<>();
    g.put(ProducerConfig.ACKS_CONFIG, "all");
    g.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
    g.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    g.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    g.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    return Collections.unmodifiableMap(g);
  }

  private static Set<String> passwordKeys() {
    Set<String> keys = new TreeSet<>();
    keys.add(SaslConfigs.SASL_JAAS_CONFIG);
    for (ConfigDef def :
        new ConfigDef[] {
          ProducerConfig.configDef(), ConsumerConfig.configDef(), AdminClientConfig.configDef()
        }) {
      def.configKeys()
          .forEach(
              (name, k) -> {
                if (k.type == ConfigDef.Type.PASSWORD) {
                  keys.add(name);
                }
              });
    }
    return Collections.unmodifiableSet(keys);
  }

  /** The servers, the client id's prefix and the user's properties, secrets hidden. */
  @Override
  public String toString() {
    StringBuilder b =
        new StringBuilder("KafkaClients[bootstrap.servers=")
            .append(bootstrapServers)
            .append(", client.id=")
            .append(clientId("<purpose>"));
    if (source != null) {
      b.append(", from ").append(source);
    }
    if (!properties.isEmpty()) {
      b.append(": ");
      String sep = "";
      for (Map.Entry<String, String> e : properties.entrySet()) {
        b.append(sep).append(e.getKey()).append('=').append(shown(e.getKey(), e.getValue()));
        sep = ", ";
      }
    }
    return b.append(']').toString();
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof KafkaClients k
        && bootstrapServers.equals(k.bootstrapServers)
        && properties.equals(k.properties)
        && Objects.equals(source, k.source)
        && Objects.equals(service, k.service)
        && Objects.equals(instance, k.instance);
  }

  @Override
  public int hashCode() {
    return Objects.hash(bootstrapServers, properties, source, service, instance);
  }
}

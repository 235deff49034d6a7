package dev.ordinal.messaging.kafka;

import dev.ordinal.messaging.ConfigurationException;
import dev.ordinal.messaging.Preflight;
import java.security.cert.CertPathBuilderException;
import java.security.cert.CertPathValidatorException;
import java.security.cert.CertificateException;
import java.util.Arrays;
import java.util.Locale;
import java.util.Optional;
import java.util.TreeSet;
import java.util.function.UnaryOperator;
import org.apache.kafka.common.config.SslConfigs;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.errors.ClusterAuthorizationException;
import org.apache.kafka.common.errors.GroupAuthorizationException;
import org.apache.kafka.common.errors.SslAuthenticationException;
import org.apache.kafka.common.errors.TopicAuthorizationException;

/**
 * The one sentence for a Kafka cluster that answered and refused this client: a failed TLS
 * handshake, a refused login, a missing authorization. Each names the cluster, what went wrong and
 * the client properties to check; never a secret (a broker's reason carries none, and the trust
 * store's location is not one).
 */
public final class KafkaRefusals {
  private KafkaRefusals() {}

  /**
   * The sentence for {@code refusal} (an {@code AuthenticationException} or {@code
   * AuthorizationException}) met by a client {@code clients} made.
   */
  public static String refusal(KafkaClients clients, Throwable refusal) {
    String check = "; check " + Preflight.propertiesOf(clients) + ".";
    if (refusal instanceof SslAuthenticationException) {
      return "The TLS handshake with the "
          + cluster(clients)
          + " failed: "
          + tlsProblem(clients, refusal)
          + check;
    }
    return "The "
        + cluster(clients)
        + " refused this client: "
        + Preflight.firstLine(refusal)
        + check;
  }

  /** {@code Kafka cluster at <servers> (ORDINAL_KAFKA_BOOTSTRAP)}. */
  private static String cluster(KafkaClients clients) {
    return "Kafka cluster at " + clients.bootstrapServers() + " (" + Preflight.KAFKA_SETTING + ")";
  }

  /** What failed in a TLS handshake, in the words of the client setting that decides it. */
  static String tlsProblem(KafkaClients clients, Throwable handshake) {
    String trustStore = clients.properties().get(SslConfigs.SSL_TRUSTSTORE_LOCATION_CONFIG);
    String trusted =
        trustStore == null
            ? SslConfigs.SSL_TRUSTSTORE_LOCATION_CONFIG + " is not set: the JVM's default CAs"
            : SslConfigs.SSL_TRUSTSTORE_LOCATION_CONFIG + "=" + trustStore;
    Throwable deepest = handshake;
    for (Throwable t = handshake; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof CertPathBuilderException || t instanceof CertPathValidatorException) {
        return "the broker's certificate is not signed by a CA the client trusts (" + trusted + ")";
      }
      if (t instanceof CertificateException c
          && c.getMessage() != null
          && c.getMessage().toLowerCase(Locale.ROOT).contains("no subject alternative")) {
        return "the broker's certificate does not name the host in "
            + Preflight.KAFKA_SETTING
            + " ("
            + SslConfigs.SSL_ENDPOINT_IDENTIFICATION_ALGORITHM_CONFIG
            + ")";
      }
      deepest = t;
    }
    return Preflight.firstLine(deepest) + " (" + trusted + ")";
  }

  /**
   * The refusal of {@code operation} on the resource {@code refusal} names (a group, or topics), or
   * on {@code resource} when it names none: one sentence naming the operation, the resource and the
   * client properties whose user needs the ACL. Kafka's exception is kept as a suppressed one (for
   * the log's trace), not as the cause, so that a loop's health shows the one sentence.
   *
   * @param operation the ACL operation, as docs/DEPLOY.md's table names it: {@code READ}
   * @param resource what was asked for, when the refusal does not name it: {@code topic t}
   */
  public static ConfigurationException notAuthorized(
      KafkaClients clients, String operation, String resource, AuthorizationException refusal) {
    String named = resourceOf(refusal);
    ConfigurationException e =
        new ConfigurationException(
            "The "
                + cluster(clients)
                + " does not allow "
                + operation
                + " on "
                + (named == null ? resource : named)
                + " to the user of "
                + Preflight.propertiesOf(clients)
                + "; grant it that ACL (docs/DEPLOY.md, \"Kafka ACLs\").");
    e.addSuppressed(refusal);
    return e;
  }

  /**
   * The {@linkplain #notAuthorized(KafkaClients, String, String, AuthorizationException) one
   * sentence} for the missing authorization among {@code failure} and its causes, with the
   * operation {@code needs} says the work needs on the resource the broker refused ({@code group
   * g}, {@code topic t}, {@code the cluster}); empty when no cause is a missing authorization.
   */
  public static Optional<ConfigurationException> notAuthorized(
      KafkaClients clients, Throwable failure, UnaryOperator<String> needs) {
    for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof ConfigurationException named
          && Arrays.stream(named.getSuppressed())
              .anyMatch(AuthorizationException.class::isInstance)) {
        return Optional.of(named); // worded already, where the operation was known
      }
      if (t instanceof AuthorizationException refusal) {
        String resource = resourceOf(refusal);
        if (resource == null) {
          resource =
              refusal instanceof ClusterAuthorizationException
                  ? "the cluster"
                  : "a resource the broker did not name";
        }
        return Optional.of(notAuthorized(clients, needs.apply(resource), resource, refusal));
      }
    }
    return Optional.empty();
  }

  /** The resource a refusal names ({@code group g}, {@code topic t}); null when it names none. */
  static String resourceOf(AuthorizationException refusal) {
    if (refusal instanceof GroupAuthorizationException g && g.groupId() != null) {
      return "group " + g.groupId();
    }
    if (refusal instanceof TopicAuthorizationException t && !t.unauthorizedTopics().isEmpty()) {
      return (t.unauthorizedTopics().size() == 1 ? "topic " : "topics ")
          + String.join(", ", new TreeSet<>(t.unauthorizedTopics()));
    }
    return null;
  }
}

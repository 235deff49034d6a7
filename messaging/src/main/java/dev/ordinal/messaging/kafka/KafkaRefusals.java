package dev.ordinal.messaging.kafka;

import dev.ordinal.messaging.Preflight;
import java.security.cert.CertPathBuilderException;
import java.security.cert.CertPathValidatorException;
import java.security.cert.CertificateException;
import java.util.Locale;
import org.apache.kafka.common.config.SslConfigs;
import org.apache.kafka.common.errors.SslAuthenticationException;

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
    String cluster =
        "the Kafka cluster at " + clients.bootstrapServers() + " (" + Preflight.KAFKA_SETTING + ")";
    String check = "; check " + Preflight.propertiesOf(clients) + ".";
    if (refusal instanceof SslAuthenticationException) {
      return "The TLS handshake with "
          + cluster
          + " failed: "
          + tlsProblem(clients, refusal)
          + check;
    }
    return "The Kafka cluster at "
        + clients.bootstrapServers()
        + " ("
        + Preflight.KAFKA_SETTING
        + ") refused this client: "
        + Preflight.firstLine(refusal)
        + check;
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
}

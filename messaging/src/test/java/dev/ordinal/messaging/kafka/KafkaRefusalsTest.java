package dev.ordinal.messaging.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ordinal.messaging.ConfigurationException;
import java.security.cert.CertPathBuilderException;
import java.security.cert.CertificateException;
import java.util.Map;
import java.util.Set;
import javax.net.ssl.SSLHandshakeException;
import org.apache.kafka.common.errors.ClusterAuthorizationException;
import org.apache.kafka.common.errors.GroupAuthorizationException;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.errors.SslAuthenticationException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.junit.jupiter.api.Test;

class KafkaRefusalsTest {
  static final String JAAS =
      "org.apache.kafka.common.security.scram.ScramLoginModule required username=\"u\""
          + " password=\"s3cret\";";
  static final KafkaClients CLIENTS =
      KafkaClients.of(
          "kafka:9093",
          Map.of(
              "security.protocol", "SASL_SSL",
              "ssl.truststore.location", "/etc/ordinal/ca.crt",
              "sasl.jaas.config", JAAS),
          "/etc/ordinal/kafka.properties (ORDINAL_KAFKA_CONFIG)");

  private static SslAuthenticationException handshake(Throwable why) {
    SSLHandshakeException h = new SSLHandshakeException("PKIX path building failed");
    h.initCause(why);
    return new SslAuthenticationException("SSL handshake failed", h);
  }

  @Test
  void aCertificateNoTrustedCaSignedNamesTheTrustStoreAndTheFile() {
    String sentence =
        KafkaRefusals.refusal(
            CLIENTS,
            handshake(
                new CertificateException(
                    "PKIX path building failed",
                    new CertPathBuilderException("unable to find valid certification path"))));

    assertThat(sentence)
        .isEqualTo(
            "The TLS handshake with the Kafka cluster at kafka:9093 (ORDINAL_KAFKA_BOOTSTRAP)"
                + " failed: the broker's certificate is not signed by a CA the client trusts"
                + " (ssl.truststore.location=/etc/ordinal/ca.crt); check the Kafka client"
                + " properties of /etc/ordinal/kafka.properties (ORDINAL_KAFKA_CONFIG).");
  }

  @Test
  void withoutATrustStoreTheJvmsCasAreNamed() {
    KafkaClients noTrustStore =
        KafkaClients.of("kafka:9093", Map.of("sasl.jaas.config", JAAS), null);

    assertThat(
            KafkaRefusals.refusal(noTrustStore, handshake(new CertPathBuilderException("no path"))))
        .contains(
            "not signed by a CA the client trusts (ssl.truststore.location is not set: the JVM's"
                + " default CAs)")
        .doesNotContain("s3cret");
  }

  @Test
  void aCertificateForAnotherHostNamesTheHostCheck() {
    assertThat(
            KafkaRefusals.refusal(
                CLIENTS,
                handshake(
                    new CertificateException(
                        "No subject alternative DNS name matching kafka found."))))
        .contains(
            "failed: the broker's certificate does not name the host in ORDINAL_KAFKA_BOOTSTRAP"
                + " (ssl.endpoint.identification.algorithm);");
  }

  @Test
  void aRefusedLoginKeepsTheBrokersReason() {
    assertThat(
            KafkaRefusals.refusal(
                CLIENTS,
                new SaslAuthenticationException(
                    "Authentication failed during authentication due to invalid credentials with"
                        + " SASL mechanism SCRAM-SHA-512")))
        .isEqualTo(
            "The Kafka cluster at kafka:9093 (ORDINAL_KAFKA_BOOTSTRAP) refused this client:"
                + " Authentication failed during authentication due to invalid credentials with"
                + " SASL mechanism SCRAM-SHA-512; check the Kafka client properties of"
                + " /etc/ordinal/kafka.properties (ORDINAL_KAFKA_CONFIG).");
  }

  @Test
  void aMissingAclNamesTheOperationTheResourceAndTheFileInOneSentence() {
    GroupAuthorizationException group =
        new GroupAuthorizationException("Not authorized to access group: billing", "billing");

    ConfigurationException e = KafkaRefusals.notAuthorized(CLIENTS, "READ", "its group", group);

    assertThat(e)
        .hasMessage(
            "The Kafka cluster at kafka:9093 (ORDINAL_KAFKA_BOOTSTRAP) does not allow READ on"
                + " group billing to the user of the Kafka client properties of"
                + " /etc/ordinal/kafka.properties (ORDINAL_KAFKA_CONFIG); grant it that ACL"
                + " (docs/DEPLOY.md, \"Kafka ACLs\").")
        .hasNoCause();
    assertThat(e.getSuppressed()).containsExactly(group);
  }

  @Test
  void topicsAreNamedFromTheRefusalOrElseFromTheCaller() {
    assertThat(
            KafkaRefusals.notAuthorized(
                    CLIENTS,
                    "WRITE",
                    "its topics",
                    new TopicAuthorizationException(Set.of("p.order", "p.invoice")))
                .getMessage())
        .contains("does not allow WRITE on topics p.invoice, p.order to the user");
    assertThat(
            KafkaRefusals.notAuthorized(
                    CLIENTS,
                    "CREATE",
                    "topic p.order",
                    new TopicAuthorizationException("Authorization failed."))
                .getMessage())
        .contains("does not allow CREATE on topic p.order to the user");
  }

  @Test
  void aMissingAclAmongAFailuresCausesIsWordedWithTheOperationTheWorkNeedsOnItsResource() {
    RuntimeException wrapped =
        new IllegalStateException(
            "Kafka did not acknowledge outbox row 1",
            new java.util.concurrent.ExecutionException(
                new TopicAuthorizationException(Set.of("p.order"))));

    assertThat(
            KafkaRefusals.notAuthorized(
                    CLIENTS, wrapped, r -> r.equals("topic p.order") ? "WRITE" : "READ")
                .orElseThrow()
                .getMessage())
        .contains("does not allow WRITE on topic p.order to the user");
    assertThat(
            KafkaRefusals.notAuthorized(
                    CLIENTS,
                    new ClusterAuthorizationException("Cluster authorization failed."),
                    r -> "IDEMPOTENT_WRITE")
                .orElseThrow()
                .getMessage())
        .contains("does not allow IDEMPOTENT_WRITE on the cluster to the user");
    ConfigurationException worded =
        KafkaRefusals.notAuthorized(
            CLIENTS, "CREATE", "topic p.order", new TopicAuthorizationException("denied"));
    assertThat(
            KafkaRefusals.notAuthorized(CLIENTS, new RuntimeException(worded), r -> "WRITE")
                .orElseThrow())
        .isSameAs(worded);
    assertThat(
            KafkaRefusals.notAuthorized(CLIENTS, new RuntimeException("no answer"), r -> "WRITE"))
        .isEmpty();
  }
}

package dev.ordinal.lab.devstack;

import dev.ordinal.lab.devstack.internal.EmbeddedKafkaBroker;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ScramCredentialInfo;
import org.apache.kafka.clients.admin.ScramMechanism;
import org.apache.kafka.clients.admin.UserScramCredentialUpsertion;

/**
 * A Kafka broker of its own, in this JVM, whose only client listener is SASL_SSL: TLS with the
 * server certificate the caller made (for {@code localhost}, signed by a CA of the test's), then
 * SCRAM-SHA-512, authorized by Kafka's {@code StandardAuthorizer} with no ACL that allows everyone.
 * Its super user ({@link #SUPER_USER}, a random password) may do everything; other users ({@link
 * #addUser}) only what ACLs grant them. A client without TLS and SASL gets no answer, one that does
 * not trust the CA fails the TLS handshake, one with a wrong password is refused. For tests of the
 * clients' security settings; the shared stack's broker stays PLAINTEXT.
 */
public final class SecuredKafka implements AutoCloseable {
  public static final String SUPER_USER = "admin";

  /**
   * The broker's TLS material: a PKCS12 key store with the server's key and chain (key and store
   * under {@code password}), and the certificate (PEM) of the CA that signed it, which clients
   * trust.
   */
  public record ServerCertificate(Path keyStore, String password, Path caCertificate) {}

  private final EmbeddedKafkaBroker broker;
  private final String password;
  private final Path caCertificate;

  private SecuredKafka(EmbeddedKafkaBroker broker, String password, Path caCertificate) {
    this.broker = broker;
    this.password = password;
    this.caCertificate = caCertificate;
  }

  /**
   * Formats a new broker in {@code dataDir} (its earlier content is deleted) and starts it with
   * {@code certificate} on its listener.
   *
   * @throws StackException when it does not start
   */
  public static SecuredKafka start(Path dataDir, ServerCertificate certificate) {
    String password = UUID.randomUUID().toString();
    return new SecuredKafka(
        EmbeddedKafkaBroker.startSecured(dataDir, SUPER_USER, password, certificate),
        password,
        certificate.caCertificate());
  }

  public String bootstrapServers() {
    return broker.bootstrapServers();
  }

  /**
   * The super user's client properties ({@code security.protocol}, {@code ssl.truststore.*}, {@code
   * sasl.mechanism}, {@code sasl.jaas.config}), as a client properties file holds them.
   */
  public Map<String, Object> superUserProperties() {
    return userProperties(SUPER_USER, password);
  }

  /** {@link #superUserProperties()} with another password: a login the broker refuses. */
  public Map<String, Object> wrongPasswordProperties() {
    return userProperties(SUPER_USER, password + "-wrong");
  }

  /** The client properties of {@code user} logging in with {@code password}. */
  public Map<String, Object> userProperties(String user, String password) {
    return EmbeddedKafkaBroker.saslClientProperties(user, password, caCertificate);
  }

  /**
   * Creates the SCRAM credential of {@code user} with a random password (as {@code kafka-configs
   * --alter --add-config SCRAM-SHA-512=...} does) and returns its client properties. It may do
   * nothing until ACLs grant it.
   */
  public Map<String, Object> addUser(String user) {
    String secret = UUID.randomUUID().toString();
    try (Admin admin = admin()) {
      admin
          .alterUserScramCredentials(
              List.of(
                  new UserScramCredentialUpsertion(
                      user, new ScramCredentialInfo(ScramMechanism.SCRAM_SHA_512, 8192), secret)))
          .all()
          .get();
    } catch (ExecutionException e) {
      throw new StackException("Cannot create the Kafka user " + user + ": " + e.getCause(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new StackException("Interrupted while creating the Kafka user " + user, e);
    }
    return userProperties(user, secret);
  }

  /** An admin client of the super user; the caller closes it. */
  public Admin admin() {
    Map<String, Object> p = new HashMap<>(superUserProperties());
    p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers());
    p.put(AdminClientConfig.CLIENT_ID_CONFIG, "secured-kafka-admin");
    return Admin.create(p);
  }

  @Override
  public void close() {
    broker.close();
  }
}

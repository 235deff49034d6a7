package dev.ordinal.lab.devstack;

import dev.ordinal.lab.devstack.internal.EmbeddedKafkaBroker;
import java.nio.file.Path;
import java.util.Map;
import java.util.UUID;

/**
 * A Kafka broker of its own, in this JVM, whose only client listener needs SASL: SASL_PLAINTEXT
 * with SCRAM-SHA-512, authorized by Kafka's {@code StandardAuthorizer} with no ACL that allows
 * everyone. Its super user ({@link #SUPER_USER}, a random password) may do everything; a client
 * without SASL gets no answer, one with a wrong password is refused. For tests of the clients'
 * security settings; the shared stack's broker stays PLAINTEXT. TLS is not offered.
 */
public final class SecuredKafka implements AutoCloseable {
  public static final String SUPER_USER = "admin";

  private final EmbeddedKafkaBroker broker;
  private final String password;

  private SecuredKafka(EmbeddedKafkaBroker broker, String password) {
    this.broker = broker;
    this.password = password;
  }

  /**
   * Formats a new broker in {@code dataDir} (its earlier content is deleted) and starts it.
   *
   * @throws StackException when it does not start
   */
  public static SecuredKafka start(Path dataDir) {
    String password = UUID.randomUUID().toString();
    return new SecuredKafka(
        EmbeddedKafkaBroker.startSecured(dataDir, SUPER_USER, password), password);
  }

  public String bootstrapServers() {
    return broker.bootstrapServers();
  }

  /**
   * The super user's client properties ({@code security.protocol}, {@code sasl.mechanism}, {@code
   * sasl.jaas.config}), as a client properties file holds them.
   */
  public Map<String, Object> superUserProperties() {
    return EmbeddedKafkaBroker.saslClientProperties(SUPER_USER, password);
  }

  /** {@link #superUserProperties()} with another password: a login the broker refuses. */
  public Map<String, Object> wrongPasswordProperties() {
    return EmbeddedKafkaBroker.saslClientProperties(SUPER_USER, password + "-wrong");
  }

  @Override
  public void close() {
    broker.close();
  }
}

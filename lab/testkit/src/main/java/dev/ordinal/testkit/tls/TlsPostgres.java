package dev.ordinal.testkit.tls;

import dev.ordinal.lab.devstack.EmbeddedPostgresServer;
import java.nio.file.Path;

/**
 * An embedded PostgreSQL 17 of its own that takes only TLS, with a certificate from {@link
 * TestCertificates}: {@code ssl=on} and {@code hostssl} lines only (see {@link
 * EmbeddedPostgresServer#startWithTls}), configured for logical replication as the shared stack's
 * is, user and password {@code postgres}, database {@code postgres}. The shared per-JVM stack stays
 * as it is; a test that needs TLS starts this beside it (about 3 s) and closes it.
 */
public final class TlsPostgres implements AutoCloseable {
  private final EmbeddedPostgresServer server;
  private final TestCertificates certificates;

  private TlsPostgres(EmbeddedPostgresServer server, TestCertificates certificates) {
    this.server = server;
    this.certificates = certificates;
  }

  /** Starts it on {@code dataDir} (emptied first) with {@code certificates}' server files. */
  public static TlsPostgres start(Path dataDir, TestCertificates certificates) {
    return new TlsPostgres(
        EmbeddedPostgresServer.startWithTls(
            dataDir,
            new EmbeddedPostgresServer.Tls(
                certificates.serverCertificate(), certificates.serverKey())),
        certificates);
  }

  /** The certificates it serves. */
  public TestCertificates certificates() {
    return certificates;
  }

  /** The server, for its port and the fault actions. */
  public EmbeddedPostgresServer server() {
    return server;
  }

  /**
   * Its URL with {@code sslmode=verify-full} and {@code sslrootcert} the CA that signed its
   * certificate: a client checks the chain and the host name.
   */
  public String verifiedUrl() {
    return verifiedUrl(certificates.caCertificate());
  }

  /**
   * Its URL with {@code sslmode=verify-full} and {@code sslrootcert=rootCertificate}: with another
   * CA's certificate, every connection fails certificate verification.
   */
  public String verifiedUrl(Path rootCertificate) {
    return server.jdbcUrl()
        + "?sslmode=verify-full&sslrootcert="
        + rootCertificate.toAbsolutePath();
  }

  @Override
  public void close() {
    server.close();
  }
}

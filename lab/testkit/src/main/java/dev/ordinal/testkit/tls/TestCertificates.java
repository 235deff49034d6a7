package dev.ordinal.testkit.tls;

import dev.ordinal.lab.devstack.SecuredKafka;
import java.io.IOException;
import java.io.OutputStream;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.UUID;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509ExtensionUtils;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.openssl.jcajce.JcaPKCS8Generator;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * A certificate authority made for one test run and a server certificate it signed, for TLS tests
 * of PostgreSQL and Kafka. Nothing here is trusted by anything else: each {@link #create} makes a
 * new CA, so two of them are unrelated (the "wrong CA" of a test is another {@code create}).
 *
 * <p>The server certificate names {@value #HOST} and the loopback addresses 127.0.0.1 and ::1
 * (subject alternative names), so a client connecting to either with host name verification ({@code
 * sslmode=verify-full}, Kafka's {@code ssl.endpoint.identification.algorithm=https}) accepts it.
 * Keys are EC P-256; certificates are valid from an hour before {@link #create} to {@link
 * #VALIDITY} after it.
 *
 * <p>Files written to the directory given:
 *
 * <ul>
 *   <li>{@value #CA_CERTIFICATE}: the CA certificate, PEM (a client's {@code sslrootcert});
 *   <li>{@value #SERVER_CERTIFICATE}: the server certificate, PEM ({@code ssl_cert_file});
 *   <li>{@value #SERVER_KEY}: the server's private key, PEM (PKCS#8, unencrypted), mode 0600
 *       ({@code ssl_key_file}; PostgreSQL refuses a key others may read);
 *   <li>{@value #KEY_STORE}: PKCS12 with the server's key and its chain (server, CA) under the
 *       alias {@value #KEY_ALIAS} ({@code ssl.keystore.location});
 *   <li>{@value #TRUST_STORE}: PKCS12 with the CA certificate under the alias {@value #CA_ALIAS}
 *       ({@code ssl.truststore.location}).
 * </ul>
 *
 * Both stores, and the key in the key store, have the password {@link #storePassword()}.
 */
public final class TestCertificates {
  public static final String HOST = "localhost";
  public static final String CA_CERTIFICATE = "root.crt";
  public static final String SERVER_CERTIFICATE = "server.crt";
  public static final String SERVER_KEY = "server.key";
  public static final String KEY_STORE = "server.p12";
  public static final String TRUST_STORE = "truststore.p12";
  public static final String KEY_ALIAS = "server";
  public static final String CA_ALIAS = "ca";

  /** How long the certificates stay valid after {@link #create}. */
  public static final Duration VALIDITY = Duration.ofDays(7);

  private static final String SIGNATURE = "SHA256withECDSA";
  private static final SecureRandom RANDOM = new SecureRandom();

  private final Path dir;
  private final String storePassword;
  private final X509Certificate ca;
  private final X509Certificate server;

  private TestCertificates(
      Path dir, String storePassword, X509Certificate ca, X509Certificate server) {
    this.dir = dir;
    this.storePassword = storePassword;
    this.ca = ca;
    this.server = server;
  }

  /** A new CA and server certificate, valid from now, written to {@code dir} (created). */
  public static TestCertificates create(Path dir) {
    return create(dir, Clock.systemUTC());
  }

  /** As {@link #create(Path)}, valid from {@code clock}'s now. */
  public static TestCertificates create(Path dir, Clock clock) {
    try {
      Files.createDirectories(dir);
      Instant now = clock.instant();
      Date from = Date.from(now.minus(Duration.ofHours(1)));
      Date to = Date.from(now.plus(VALIDITY));
      String run = UUID.randomUUID().toString().substring(0, 8);

      KeyPair caKeys = keyPair();
      X500Name caName = new X500Name("CN=Ordinal test CA " + run);
      JcaX509ExtensionUtils ext = new JcaX509ExtensionUtils();
      X509v3CertificateBuilder caBuilder =
          new JcaX509v3CertificateBuilder(caName, serial(), from, to, caName, caKeys.getPublic())
              .addExtension(Extension.basicConstraints, true, new BasicConstraints(0))
              .addExtension(
                  Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign))
              .addExtension(
                  Extension.subjectKeyIdentifier,
                  false,
                  ext.createSubjectKeyIdentifier(caKeys.getPublic()));
      X509Certificate ca = sign(caBuilder, caKeys.getPrivate());

      KeyPair serverKeys = keyPair();
      X509v3CertificateBuilder serverBuilder =
          new JcaX509v3CertificateBuilder(
                  ca, serial(), from, to, new X500Name("CN=" + HOST), serverKeys.getPublic())
              .addExtension(Extension.basicConstraints, true, new BasicConstraints(false))
              .addExtension(
                  Extension.keyUsage,
                  true,
                  new KeyUsage(KeyUsage.digitalSignature | KeyUsage.keyAgreement))
              .addExtension(
                  Extension.extendedKeyUsage,
                  false,
                  new ExtendedKeyUsage(
                      new KeyPurposeId[] {
                        KeyPurposeId.id_kp_serverAuth, KeyPurposeId.id_kp_clientAuth
                      }))
              .addExtension(
                  Extension.subjectAlternativeName,
                  false,
                  new GeneralNames(
                      new GeneralName[] {
                        new GeneralName(GeneralName.dNSName, HOST),
                        new GeneralName(GeneralName.iPAddress, "127.0.0.1"),
                        new GeneralName(GeneralName.iPAddress, "::1")
                      }))
              .addExtension(
                  Extension.authorityKeyIdentifier, false, ext.createAuthorityKeyIdentifier(ca))
              .addExtension(
                  Extension.subjectKeyIdentifier,
                  false,
                  ext.createSubjectKeyIdentifier(serverKeys.getPublic()));
      X509Certificate server = sign(serverBuilder, caKeys.getPrivate());

      String password = "test-" + run;
      TestCertificates certs = new TestCertificates(dir, password, ca, server);
      Files.writeString(certs.caCertificate(), pem(ca));
      Files.writeString(certs.serverCertificate(), pem(server));
      writeOwnerOnly(certs.serverKey(), pem(new JcaPKCS8Generator(serverKeys.getPrivate(), null)));
      writeKeyStore(certs.keyStore(), password, serverKeys.getPrivate(), server, ca);
      writeTrustStore(certs.trustStore(), password, ca);
      return certs;
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot write the test certificates to " + dir, e);
    } catch (GeneralSecurityException | OperatorCreationException e) {
      throw new IllegalStateException("Cannot make the test certificates: " + e.getMessage(), e);
    }
  }

  /** The CA certificate, PEM: what a client trusts ({@code sslrootcert}). */
  public Path caCertificate() {
    return dir.resolve(CA_CERTIFICATE);
  }

  /** The server certificate, PEM. */
  public Path serverCertificate() {
    return dir.resolve(SERVER_CERTIFICATE);
  }

  /** The server's private key, PEM, readable by its owner only. */
  public Path serverKey() {
    return dir.resolve(SERVER_KEY);
  }

  /** PKCS12: the server's key and chain, alias {@value #KEY_ALIAS}. */
  public Path keyStore() {
    return dir.resolve(KEY_STORE);
  }

  /** PKCS12: the CA certificate, alias {@value #CA_ALIAS}. */
  public Path trustStore() {
    return dir.resolve(TRUST_STORE);
  }

  /** The key store, its password and the CA certificate, as a secured Kafka broker takes them. */
  public SecuredKafka.ServerCertificate forKafka() {
    return new SecuredKafka.ServerCertificate(keyStore(), storePassword, caCertificate());
  }

  /** The password of both stores and of the key in the key store. */
  public String storePassword() {
    return storePassword;
  }

  /** The CA's certificate (its subject names this run: "Ordinal test CA &lt;id&gt;"). */
  public X509Certificate ca() {
    return ca;
  }

  /** The server certificate, signed by {@link #ca()}. */
  public X509Certificate server() {
    return server;
  }

  private static KeyPair keyPair() throws GeneralSecurityException {
    KeyPairGenerator g = KeyPairGenerator.getInstance("EC");
    g.initialize(new ECGenParameterSpec("secp256r1"), RANDOM);
    return g.generateKeyPair();
  }

  private static BigInteger serial() {
    return new BigInteger(64, RANDOM).add(BigInteger.ONE);
  }

  private static X509Certificate sign(X509v3CertificateBuilder builder, PrivateKey key)
      throws OperatorCreationException, GeneralSecurityException {
    return new JcaX509CertificateConverter()
        .getCertificate(builder.build(new JcaContentSignerBuilder(SIGNATURE).build(key)));
  }

  private static String pem(Object o) throws IOException {
    StringWriter out = new StringWriter();
    try (JcaPEMWriter pem = new JcaPEMWriter(out)) {
      pem.writeObject(o);
    }
    return out.toString();
  }

  private static void writeOwnerOnly(Path file, String text) throws IOException {
    Files.deleteIfExists(file);
    Files.createFile(
        file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
    Files.writeString(file, text, StandardCharsets.US_ASCII);
  }

  private static void writeKeyStore(
      Path file, String password, PrivateKey key, X509Certificate server, X509Certificate ca)
      throws IOException, GeneralSecurityException {
    KeyStore store = KeyStore.getInstance("PKCS12");
    store.load(null, null);
    store.setKeyEntry(KEY_ALIAS, key, password.toCharArray(), new Certificate[] {server, ca});
    save(store, file, password);
  }

  private static void writeTrustStore(Path file, String password, X509Certificate ca)
      throws IOException, GeneralSecurityException {
    KeyStore store = KeyStore.getInstance("PKCS12");
    store.load(null, null);
    store.setCertificateEntry(CA_ALIAS, ca);
    save(store, file, password);
  }

  private static void save(KeyStore store, Path file, String password)
      throws IOException, GeneralSecurityException {
    try (OutputStream out = Files.newOutputStream(file)) {
      store.store(out, password.toCharArray());
    }
  }
}

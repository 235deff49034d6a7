package dev.ordinal.testkit.tls;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.KeyStore;
import java.security.SignatureException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The files a TLS test gives a server and a client: the server certificate is signed by this run's
 * CA and by no other, names localhost, 127.0.0.1 and ::1, its key is readable by its owner only,
 * and the PKCS12 stores open with the password and hold the key with its chain and the CA.
 */
class TestCertificatesTest {

  @Test
  void theServerCertificateIsSignedByItsCaAndNamesTheLoopback(@TempDir Path dir) throws Exception {
    TestCertificates certs = TestCertificates.create(dir.resolve("a"));
    TestCertificates other = TestCertificates.create(dir.resolve("b"));
    X509Certificate ca = read(certs.caCertificate());
    X509Certificate server = read(certs.serverCertificate());

    server.verify(ca.getPublicKey());
    server.checkValidity();
    assertThatThrownBy(() -> server.verify(read(other.caCertificate()).getPublicKey()))
        .isInstanceOf(SignatureException.class);
    assertThat(ca.getBasicConstraints()).isZero();
    assertThat(server.getBasicConstraints()).isEqualTo(-1);
    assertThat(server.getSubjectAlternativeNames())
        .containsExactlyInAnyOrder(
            List.of(2, "localhost"), List.of(7, "127.0.0.1"), List.of(7, "0:0:0:0:0:0:0:1"));
    assertThat(Files.getPosixFilePermissions(certs.serverKey()))
        .isEqualTo(PosixFilePermissions.fromString("rw-------"));
    assertThat(Files.readString(certs.serverKey())).startsWith("-----BEGIN PRIVATE KEY-----");
  }

  @Test
  void theStoresOpenWithThePasswordAndHoldTheKeyChainAndTheCa(@TempDir Path dir) throws Exception {
    TestCertificates certs = TestCertificates.create(dir);
    char[] password = certs.storePassword().toCharArray();

    KeyStore keys = KeyStore.getInstance("PKCS12");
    try (InputStream in = Files.newInputStream(certs.keyStore())) {
      keys.load(in, password);
    }
    assertThat(keys.getKey(TestCertificates.KEY_ALIAS, password)).isNotNull();
    assertThat(keys.getCertificateChain(TestCertificates.KEY_ALIAS))
        .containsExactly(certs.server(), certs.ca());

    KeyStore trust = KeyStore.getInstance("PKCS12");
    try (InputStream in = Files.newInputStream(certs.trustStore())) {
      trust.load(in, password);
    }
    assertThat(trust.isCertificateEntry(TestCertificates.CA_ALIAS)).isTrue();
    assertThat(trust.getCertificate(TestCertificates.CA_ALIAS)).isEqualTo(certs.ca());
  }

  private static X509Certificate read(Path pem) throws Exception {
    try (InputStream in = Files.newInputStream(pem)) {
      return (X509Certificate) CertificateFactory.getInstance("X.509").generateCertificate(in);
    }
  }
}

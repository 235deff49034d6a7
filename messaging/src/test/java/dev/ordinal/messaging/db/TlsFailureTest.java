package dev.ordinal.messaging.db;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ordinal.messaging.Preflight;
import java.io.FileNotFoundException;
import java.net.ConnectException;
import java.security.cert.CertificateException;
import java.security.cert.CertificateExpiredException;
import javax.net.ssl.SSLHandshakeException;
import org.junit.jupiter.api.Test;
import org.postgresql.util.PSQLException;
import org.postgresql.util.PSQLState;

/**
 * The TLS failures pgjdbc reports as connection failures (08006) are told apart from a server that
 * does not answer: each gets one sentence naming ORDINAL_DB_URL, and none is waited for.
 */
class TlsFailureTest {
  static final DatabaseSettings DB =
      new DatabaseSettings(
          "jdbc:postgresql://db1:5432/app?sslmode=verify-full&sslrootcert=/etc/ca.crt"
              + "&sslpassword=keypw",
          "u",
          "s3cret");
  static final String AT =
      "PostgreSQL at jdbc:postgresql://db1:5432/app?sslmode=verify-full&sslrootcert=/etc/ca.crt"
          + "&sslpassword=*** (ORDINAL_DB_URL): ";

  /** As pgjdbc wraps a handshake that failed: "SSL error: ...", 08006, the JSSE exception. */
  static PSQLException sslError(Throwable handshakeCause) {
    SSLHandshakeException handshake = new SSLHandshakeException("PKIX path building failed");
    handshake.initCause(handshakeCause);
    return new PSQLException(
        "SSL error: PKIX path building failed", PSQLState.CONNECTION_FAILURE, handshake);
  }

  /** {@code e} is described as {@link #AT} then {@code problem}, and is not waited out. */
  static void assertDescribedAndNotWaitedFor(PSQLException e, String problem) {
    assertThat(TlsFailure.describe(DB, e)).isEqualTo(AT + problem);
    assertThat(Preflight.unavailable(e)).isFalse();
  }

  static void assertNoTlsFailureAndWaitedFor(PSQLException e) {
    assertThat(TlsFailure.isTlsFailure(e)).isFalse();
    assertThat(Preflight.unavailable(e)).isTrue();
  }

  @Test
  void aCertificateNotSignedByTheRootCertificatesCaFailsVerification() {
    PSQLException e = sslError(new CertificateException("unable to find valid certification path"));
    assertDescribedAndNotWaitedFor(
        e,
        "certificate verification failed: the server's certificate is not signed by the"
            + " CA in sslrootcert=/etc/ca.crt; set sslrootcert to the certificate of the CA"
            + " that signed the server's.");
  }

  @Test
  void anExpiredCertificateSaysSo() {
    CertificateException path = new CertificateException("validity check failed");
    path.initCause(new CertificateExpiredException("NotAfter: 2026-01-01"));
    assertThat(TlsFailure.describe(DB, sslError(path)))
        .isEqualTo(
            AT
                + "certificate verification failed: the server's certificate has expired; renew it"
                + " on the server.");
  }

  @Test
  void aHostNameTheCertificateDoesNotHoldFailsVerification() {
    PSQLException e =
        new PSQLException(
            "The hostname db1 could not be verified by hostnameverifier PgjdbcHostnameVerifier.",
            PSQLState.CONNECTION_FAILURE);
    assertDescribedAndNotWaitedFor(
        e,
        "certificate verification failed: the server's certificate does not name the"
            + " host db1; connect by a name it holds (sslmode=verify-full checks it).");
  }

  @Test
  void aRootCertificateFileThatIsMissingIsNamed() {
    PSQLException e =
        new PSQLException(
            "Could not open SSL root certificate file /etc/ca.crt.",
            PSQLState.CONNECTION_FAILURE,
            new FileNotFoundException("/etc/ca.crt (No such file or directory)"));
    assertDescribedAndNotWaitedFor(
        e,
        "a TLS file the URL names cannot be read (/etc/ca.crt (No such file or"
            + " directory)); fix sslrootcert, sslcert or sslkey.");
  }

  @Test
  void aServerThatDoesNotAnswerIsNoTlsFailureAndIsWaitedFor() {
    PSQLException refused =
        new PSQLException(
            "Connection to db1:5432 refused.",
            PSQLState.CONNECTION_UNABLE_TO_CONNECT,
            new ConnectException("Connection refused"));
    assertNoTlsFailureAndWaitedFor(refused);
    assertThat(TlsFailure.describe(DB, refused)).isNull();
    // a handshake the server cut short (restarting) is waited for too
    assertNoTlsFailureAndWaitedFor(
        new PSQLException(
            "SSL error: Remote host terminated the handshake",
            PSQLState.CONNECTION_FAILURE,
            new SSLHandshakeException("Remote host terminated the handshake")));
  }

  @Test
  void theUrlIsShownAsTheSettingHasItWithoutTheSchemaAServiceAdds() {
    assertThat(TlsFailure.describe(DB.withSchema("billing"), sslError(new CertificateException())))
        .startsWith(AT);
  }

  @Test
  void withoutSslrootcertTheDefaultFileIsNamed() {
    DatabaseSettings db =
        new DatabaseSettings("jdbc:postgresql://db1:5432/app?sslmode=verify-ca", "u", "");
    assertThat(TlsFailure.describe(db, sslError(new CertificateException("no path"))))
        .contains("not signed by a CA in pgjdbc's default sslrootcert (~/.postgresql/root.crt)");
  }
}

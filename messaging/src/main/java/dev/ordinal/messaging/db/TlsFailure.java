package dev.ordinal.messaging.db;

import java.io.FileNotFoundException;
import java.security.cert.CertPathBuilderException;
import java.security.cert.CertPathValidatorException;
import java.security.cert.CertificateException;
import java.security.cert.CertificateExpiredException;
import java.security.cert.CertificateNotYetValidException;
import java.util.Properties;
import org.postgresql.Driver;

/**
 * A connection to PostgreSQL that failed on TLS in a way no wait mends: the server's certificate
 * did not verify ({@code sslmode=verify-ca} or {@code verify-full}: not signed by the CA in {@code
 * sslrootcert}, expired, or not naming the host), or a TLS file the URL names cannot be read.
 * pgjdbc reports each as a connection failure (SQLSTATE 08006), which alone reads like a server
 * that does not answer; these say what to fix in {@value DatabaseSettings#URL_SETTING} instead.
 */
public final class TlsFailure {
  private TlsFailure() {}

  private enum Kind {
    UNTRUSTED,
    EXPIRED,
    NOT_YET_VALID,
    HOST_NAME,
    FILE
  }

  /** True when {@code e}, or one of its causes, is such a TLS failure. */
  public static boolean isTlsFailure(Throwable e) {
    return kind(e) != null;
  }

  /**
   * One sentence naming {@value DatabaseSettings#URL_SETTING} and what to fix, when {@code e} is
   * such a TLS failure of a connection made with {@code db}; null otherwise. The URL in it is
   * {@link DatabaseSettings#redactedUrl() redacted}.
   */
  public static String describe(DatabaseSettings db, Throwable e) {
    Kind kind = kind(e);
    if (kind == null) {
      return null;
    }
    // the URL as the setting has it: without the schema a service or command adds to it
    String url =
        DatabaseSettings.redact(DatabaseSettings.withoutParameter(db.jdbcUrl(), "currentSchema"));
    String at = "PostgreSQL at " + url + " (" + DatabaseSettings.URL_SETTING + "): ";
    String verification = at + "certificate verification failed: ";
    return switch (kind) {
      case UNTRUSTED ->
          verification
              + "the server's certificate is not signed by "
              + trusted(db)
              + "; set sslrootcert to the certificate of the CA that signed the server's.";
      case EXPIRED ->
          verification + "the server's certificate has expired; renew it on the server.";
      case NOT_YET_VALID ->
          verification
              + "the server's certificate is not valid yet; check the clocks of this machine and"
              + " of the CA.";
      case HOST_NAME ->
          verification
              + "the server's certificate does not name the host "
              + db.host()
              + "; connect by a name it holds (sslmode=verify-full checks it).";
      case FILE ->
          at
              + "a TLS file the URL names cannot be read ("
              + fileProblem(e)
              + "); fix sslrootcert, sslcert or sslkey.";
    };
  }

  /** What the client trusts: the URL's {@code sslrootcert}, or pgjdbc's default file. */
  private static String trusted(DatabaseSettings db) {
    Properties p = Driver.parseURL(db.jdbcUrl(), new Properties());
    String root = p == null ? null : p.getProperty("sslrootcert");
    return root == null
        ? "a CA in pgjdbc's default sslrootcert (~/.postgresql/root.crt)"
        : "the CA in sslrootcert=" + root;
  }

  private static Kind kind(Throwable e) {
    int depth = 0;
    for (Throwable t = e; t != null && depth < 20; t = t.getCause(), depth++) {
      if (t instanceof CertificateExpiredException) {
        return Kind.EXPIRED;
      }
      if (t instanceof CertificateNotYetValidException) {
        return Kind.NOT_YET_VALID;
      }
      if (t instanceof CertificateException
          || t instanceof CertPathValidatorException
          || t instanceof CertPathBuilderException) {
        // keep looking: an expiry below a path failure says more
        Kind below = kind(t.getCause() == t ? null : t.getCause());
        return below == Kind.EXPIRED || below == Kind.NOT_YET_VALID ? below : Kind.UNTRUSTED;
      }
      if (t instanceof FileNotFoundException) {
        // pgjdbc opens sslrootcert, sslcert and sslkey before the handshake
        return Kind.FILE;
      }
      if (t instanceof java.sql.SQLException sql
          && "08006".equals(sql.getSQLState())
          && sql.getMessage() != null
          && sql.getMessage().startsWith("The hostname ")
          && sql.getMessage().contains(" could not be verified")) {
        // pgjdbc's host name check after the handshake: no cause, no state of its own
        return Kind.HOST_NAME;
      }
      if (t.getCause() == t) {
        break;
      }
    }
    return null;
  }

  private static String fileProblem(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof FileNotFoundException f && f.getMessage() != null) {
        return f.getMessage();
      }
    }
    return "not found";
  }
}

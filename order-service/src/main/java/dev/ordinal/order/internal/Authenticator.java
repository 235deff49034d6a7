package dev.ordinal.order.internal;

import dev.ordinal.order.ApiAuth;
import java.time.Clock;

/**
 * Tells who sends a request from its {@code Authorization} header ({@link ApiAuth} says how).
 * Thread-safe: one instance serves every request.
 */
public interface Authenticator {
  String WWW_AUTHENTICATE = "WWW-Authenticate";

  /** The {@code realm} of the challenges: what the token is for. */
  String REALM = "ordinal-orders";

  /**
   * The caller of a request whose {@code Authorization} header is {@code authorization} (null when
   * absent).
   *
   * @throws Problem.Exception 401 with {@code WWW-Authenticate} when there is no valid token; 403
   *     when the token is valid but not for this API; 503 with {@code Retry-After} when the keys to
   *     check it with cannot be had now
   */
  Caller authenticate(String authorization);

  /**
   * The authenticator {@code auth} describes: its keys read (a JWKS file) or set up to be fetched
   * (a JWKS URL).
   *
   * @throws dev.ordinal.messaging.ConfigurationException when the JWKS file cannot be used
   */
  static Authenticator of(ApiAuth auth, Clock clock) {
    if (auth.isNone()) {
      return authorization -> Caller.ANONYMOUS;
    }
    return new JwtAuthenticator(auth, JwtAuthenticator.keys(auth), clock);
  }

  /**
   * A {@code Bearer} challenge (RFC 6750, section 3): the realm, then the error code and its
   * description when given. Neither may hold a double quote or a backslash.
   */
  static String challenge(String error, String description) {
    StringBuilder b = new StringBuilder("Bearer realm=\"" + REALM + "\"");
    if (error != null) {
      b.append(", error=\"").append(error).append('"');
    }
    if (description != null) {
      b.append(", error_description=\"");
      // RFC 6750 allows printable ASCII but '"' and '\\' here
      description
          .chars()
          .map(c -> c < 0x20 || c > 0x7e || c == '"' || c == '\\' ? '\'' : c)
          .forEach(c -> b.append((char) c));
      b.append('"');
    }
    return b.toString();
  }
}

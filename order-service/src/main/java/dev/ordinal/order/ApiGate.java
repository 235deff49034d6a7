package dev.ordinal.order;

import dev.ordinal.order.internal.Authenticator;
import dev.ordinal.order.internal.Caller;
import dev.ordinal.order.internal.Problem;
import java.time.Clock;
import java.util.Map;
import java.util.Objects;

/**
 * The order API's authentication ({@link ApiAuth}) for another HTTP surface of the product, such as
 * the console: the same bearer tokens, checked by the same code, answered with the same problems
 * and challenges. Thread-safe.
 */
public final class ApiGate {
  private final Authenticator authenticator;
  private final boolean none;

  private ApiGate(Authenticator authenticator, boolean none) {
    this.authenticator = authenticator;
    this.none = none;
  }

  /**
   * The gate {@code auth} describes: its JWKS file read now, or its JWKS URL set up to be fetched.
   *
   * @throws dev.ordinal.messaging.ConfigurationException when the JWKS file cannot be used
   */
  public static ApiGate of(ApiAuth auth, Clock clock) {
    return new ApiGate(
        Authenticator.of(Objects.requireNonNull(auth, "auth"), clock), auth.isNone());
  }

  /**
   * Who sends a request with this {@code Authorization} header (null when absent), granted {@code
   * scope}; or why not. With {@link ApiAuth.Mode#NONE} every request is {@link
   * ApiAuth#ANONYMOUS}'s, granted every scope.
   */
  public Outcome check(String authorization, String scope) {
    if (none) {
      return new Outcome(ApiAuth.ANONYMOUS, null);
    }
    try {
      Caller caller = authenticator.authenticate(authorization);
      caller.require(scope);
      return new Outcome(caller.subject(), null);
    } catch (Problem.Exception e) {
      Problem p = e.problem();
      return new Outcome(null, new Refusal(p.status(), e.headers(), p.detail()));
    }
  }

  /**
   * What {@link #check} found: the caller's subject, or the refusal to answer with.
   *
   * @param subject the token's {@code sub} ({@link ApiAuth#ANONYMOUS} without authentication); null
   *     when refused
   * @param refusal null when allowed
   */
  public record Outcome(String subject, Refusal refusal) {
    public boolean allowed() {
      return refusal == null;
    }
  }

  /**
   * A refused request's answer: 401 (no valid token, with {@code WWW-Authenticate}), 403 (another
   * audience, or the scope not granted) or 503 (the keys cannot be fetched now, with {@code
   * Retry-After}).
   *
   * @param headers the response headers to send
   * @param detail one sentence saying what is wrong
   */
  public record Refusal(int status, Map<String, String> headers, String detail) {
    /** The content type of a problem document, the order API's. */
    public static final String CONTENT_TYPE = Problem.CONTENT_TYPE;

    public Refusal {
      headers = Map.copyOf(headers);
    }
  }
}

package dev.ordinal.order.internal;

import dev.ordinal.order.ApiAuth;
import java.util.Set;

/**
 * Who is calling the order API, once authenticated: the subject that owns the orders and
 * idempotency keys it places, and the scopes it was granted.
 *
 * @param subject the token's {@code sub}, or {@link ApiAuth#ANONYMOUS} without authentication
 * @param scopes what it may do ({@link ApiAuth#SCOPE_WRITE}, ...)
 */
public record Caller(String subject, Set<String> scopes) {
  /** The one caller when the API is not authenticated: may do everything. */
  public static final Caller ANONYMOUS =
      new Caller(
          ApiAuth.ANONYMOUS, Set.of(ApiAuth.SCOPE_WRITE, ApiAuth.SCOPE_READ, ApiAuth.SCOPE_CANCEL));

  public Caller {
    scopes = Set.copyOf(scopes);
  }

  /**
   * Nothing, when the caller was granted {@code scope}.
   *
   * @throws Problem.Exception 403 naming the scope, with {@code WWW-Authenticate} saying {@code
   *     insufficient_scope}
   */
  public void require(String scope) {
    if (!scopes.contains(scope)) {
      throw Problem.forbidden(
              "The token does not grant the scope " + scope + " that this request needs.")
          .toException(
              Authenticator.WWW_AUTHENTICATE,
              Authenticator.challenge("insufficient_scope", null) + ", scope=\"" + scope + "\"");
    }
  }
}

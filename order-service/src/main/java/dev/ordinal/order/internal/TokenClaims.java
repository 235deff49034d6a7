package dev.ordinal.order.internal;

import com.nimbusds.jwt.JWTClaimsSet;
import dev.ordinal.order.ApiAuth;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The checks of a token's claims that are this API's own, made after its signature, issuer and
 * times were verified: the audience, the subject, and the scopes it grants.
 */
public final class TokenClaims {
  private TokenClaims() {}

  /**
   * The caller a verified token names.
   *
   * @param audience the value its {@code aud} must include
   * @throws Problem.Exception 403 when {@code aud} does not include {@code audience}; 401 when
   *     {@code sub} is missing, empty or longer than {@link ApiAuth#MAX_SUBJECT_LENGTH}, or {@code
   *     scope}/{@code scp} is not text or a list of text
   */
  public static Caller caller(JWTClaimsSet claims, String audience) {
    List<String> aud = claims.getAudience();
    if (aud == null || !aud.contains(audience)) {
      throw Problem.forbidden(
              "The token is not for this API: its audience (aud) does not include "
                  + audience
                  + ".")
          .toException();
    }
    String subject = claims.getSubject();
    if (subject == null || subject.isBlank() || subject.length() > ApiAuth.MAX_SUBJECT_LENGTH) {
      throw JwtAuthenticator.invalid(
          "The token's subject (sub) must be 1 to " + ApiAuth.MAX_SUBJECT_LENGTH + " characters.");
    }
    return new Caller(subject, scopes(claims));
  }

  /**
   * The scopes a token grants: the space-separated {@code scope} (RFC 8693, section 4.2) and the
   * {@code scp} claim, a list or a space-separated text, together.
   */
  static Set<String> scopes(JWTClaimsSet claims) {
    Set<String> scopes = new LinkedHashSet<>();
    for (String claim : List.of("scope", "scp")) {
      Object value = claims.getClaim(claim);
      if (value == null) {
        continue;
      }
      if (value instanceof String text) {
        addWords(scopes, text);
      } else if (value instanceof Collection<?> list
          && list.stream().allMatch(String.class::isInstance)) {
        list.forEach(s -> addWords(scopes, (String) s));
      } else {
        throw JwtAuthenticator.invalid(
            "The token's " + claim + " claim must be text or a list of text.");
      }
    }
    return scopes;
  }

  private static void addWords(Set<String> scopes, String text) {
    for (String word : text.trim().split("\\s+")) {
      if (!word.isEmpty()) {
        scopes.add(word);
      }
    }
  }
}

package dev.ordinal.order.internal;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JOSEObjectType;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.KeySourceException;
import com.nimbusds.jose.jwk.ECKey;
import com.nimbusds.jose.jwk.JWKSet;
import com.nimbusds.jose.jwk.RSAKey;
import com.nimbusds.jose.jwk.source.ImmutableJWKSet;
import com.nimbusds.jose.jwk.source.JWKSource;
import com.nimbusds.jose.jwk.source.JWKSourceBuilder;
import com.nimbusds.jose.jwk.source.RateLimitReachedException;
import com.nimbusds.jose.proc.BadJOSEException;
import com.nimbusds.jose.proc.DefaultJOSEObjectTypeVerifier;
import com.nimbusds.jose.proc.JWSVerificationKeySelector;
import com.nimbusds.jose.proc.SecurityContext;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.proc.DefaultJWTClaimsVerifier;
import com.nimbusds.jwt.proc.DefaultJWTProcessor;
import dev.ordinal.messaging.ConfigurationException;
import dev.ordinal.order.ApiAuth;
import java.io.IOException;
import java.net.MalformedURLException;
import java.nio.file.Path;
import java.text.ParseException;
import java.time.Clock;
import java.util.Date;
import java.util.Locale;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Bearer JWTs checked with nimbus-jose-jwt: signed with RS256 or ES256 (any other algorithm, and
 * unsigned tokens, are refused) by a key of the JSON Web Key Set; typed {@code JWT}, {@code at+jwt}
 * or not typed; {@code iss} exactly the configured issuer; {@code exp} present and not past, {@code
 * nbf} (if any) reached, both within the clock skew of the injected clock; then the audience,
 * subject and scopes ({@link TokenClaims}).
 */
final class JwtAuthenticator implements Authenticator {
  /** The signature algorithms a token may use: the asymmetric ones issuers use. */
  static final Set<JWSAlgorithm> ALGORITHMS = Set.of(JWSAlgorithm.RS256, JWSAlgorithm.ES256);

  /** How long to wait before asking again when the keys could not be fetched. */
  static final int RETRY_AFTER_SECONDS = 5;

  private static final Logger log = LoggerFactory.getLogger(JwtAuthenticator.class);
  private static final String BEARER = "bearer ";

  private final DefaultJWTProcessor<SecurityContext> processor;
  private final String audience;

  JwtAuthenticator(ApiAuth auth, JWKSource<SecurityContext> keys, Clock clock) {
    this.audience = auth.audience();
    this.processor = new DefaultJWTProcessor<>();
    processor.setJWSTypeVerifier(
        new DefaultJOSEObjectTypeVerifier<>(
            JOSEObjectType.JWT, new JOSEObjectType("at+jwt"), null));
    processor.setJWSKeySelector(new JWSVerificationKeySelector<>(ALGORITHMS, keys));
    ClockedClaimsVerifier claims = new ClockedClaimsVerifier(auth.issuer(), clock);
    claims.setMaxClockSkew((int) auth.clockSkew().toSeconds());
    processor.setJWTClaimsSetVerifier(claims);
  }

  @Override
  public Caller authenticate(String authorization) {
    if (authorization == null || authorization.isBlank()) {
      throw Problem.unauthorized("Send a bearer token: Authorization: Bearer <token>.")
          .toException(WWW_AUTHENTICATE, Authenticator.challenge(null, null));
    }
    if (authorization.length() <= BEARER.length()
        || !authorization.substring(0, BEARER.length()).toLowerCase(Locale.ROOT).equals(BEARER)) {
      throw Problem.unauthorized(
              "Only bearer tokens are accepted: send Authorization: Bearer <token>.")
          .toException(WWW_AUTHENTICATE, Authenticator.challenge(null, null));
    }
    String token = authorization.substring(BEARER.length()).trim();
    JWTClaimsSet claims;
    try {
      claims = processor.process(token, null);
    } catch (ParseException e) {
      throw invalid("The bearer token is not a JWT.");
    } catch (BadJOSEException e) {
      throw invalid("The bearer token was refused: " + e.getMessage() + ".");
    } catch (RateLimitReachedException e) {
      // the keys were fetched moments ago and none matches: the token's key is not the issuer's
      throw invalid("The bearer token was refused: no key of the issuer matches its key id.");
    } catch (KeySourceException e) {
      log.warn("The keys that sign tokens could not be had: {}", e.toString());
      throw Problem.unavailable(
              "The keys to check the token with cannot be fetched now; try again shortly.")
          .toException("Retry-After", Integer.toString(RETRY_AFTER_SECONDS));
    } catch (JOSEException e) {
      throw invalid("The bearer token could not be checked: " + e.getMessage() + ".");
    }
    return TokenClaims.caller(claims, audience);
  }

  /** 401 with an {@code invalid_token} challenge carrying {@code detail}. */
  static Problem.Exception invalid(String detail) {
    return Problem.unauthorized(detail)
        .toException(WWW_AUTHENTICATE, Authenticator.challenge("invalid_token", detail));
  }

  /**
   * The keys {@code auth} names: the public keys of its JWKS file, read now; or its JWKS URL,
   * fetched when first needed, cached (5 minutes, refreshed ahead of expiry), fetched again for a
   * key id it does not hold at most once per 30 s, as nimbus' {@link JWKSourceBuilder} does by
   * default.
   *
   * @throws ConfigurationException when the file cannot be read, is not a JWKS, or holds no RSA or
   *     EC key
   */
  static JWKSource<SecurityContext> keys(ApiAuth auth) {
    if (auth.jwksFile() == null) {
      try {
        return JWKSourceBuilder.<SecurityContext>create(auth.jwksUrl().toURL()).build();
      } catch (MalformedURLException | IllegalArgumentException e) {
        throw new ConfigurationException(
            ApiAuth.JWKS_URL.option()
                + " "
                + auth.keysDescription()
                + " is not a URL: "
                + e.getMessage());
      }
    }
    Path file = auth.jwksFile();
    JWKSet keys;
    try {
      keys = JWKSet.load(file.toFile()).toPublicJWKSet();
    } catch (IOException e) {
      throw new ConfigurationException(
          ApiAuth.JWKS_FILE.option() + " " + file + " cannot be read: " + e.getMessage(), e);
    } catch (ParseException e) {
      throw new ConfigurationException(
          ApiAuth.JWKS_FILE.option() + " " + file + " is not a JSON Web Key Set: " + e.getMessage(),
          e);
    }
    if (keys.getKeys().stream().noneMatch(k -> k instanceof RSAKey || k instanceof ECKey)) {
      throw new ConfigurationException(
          ApiAuth.JWKS_FILE.option()
              + " "
              + file
              + " holds no RSA or EC public key to check RS256 or ES256 signatures with");
    }
    return new ImmutableJWKSet<>(keys);
  }

  /** nimbus' claims checks, with the issuer exact, sub and exp required, on an injected clock. */
  static final class ClockedClaimsVerifier extends DefaultJWTClaimsVerifier<SecurityContext> {
    private final Clock clock;

    ClockedClaimsVerifier(String issuer, Clock clock) {
      super(null, new JWTClaimsSet.Builder().issuer(issuer).build(), Set.of("sub", "exp"), null);
      this.clock = clock;
    }

    @Override
    protected Date currentTime() {
      return Date.from(clock.instant());
    }
  }
}

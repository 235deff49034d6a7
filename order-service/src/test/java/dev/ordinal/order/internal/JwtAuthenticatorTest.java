package dev.ordinal.order.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.KeySourceException;
import com.nimbusds.jose.crypto.MACSigner;
import com.nimbusds.jose.jwk.OctetSequenceKey;
import com.nimbusds.jose.jwk.source.ImmutableJWKSet;
import com.nimbusds.jose.jwk.source.JWKSource;
import com.nimbusds.jose.proc.SecurityContext;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.PlainJWT;
import dev.ordinal.messaging.ConfigurationException;
import dev.ordinal.order.ApiAuth;
import dev.ordinal.testkit.Tokens;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Date;
import java.util.List;
import java.util.Set;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The claim checks of a bearer token, on a fixed clock and keys made by the test. */
class JwtAuthenticatorTest {
  static final Tokens TOKENS = new Tokens();
  static final Instant NOW = Instant.parse("2026-03-01T12:00:00Z");
  static final Duration SKEW = Duration.ofSeconds(60);

  final JwtAuthenticator auth = authenticator(new ImmutableJWKSet<>(TOKENS.publicKeys()));

  static JwtAuthenticator authenticator(JWKSource<SecurityContext> keys) {
    return new JwtAuthenticator(
        ApiAuth.jwt(Tokens.ISSUER, Tokens.AUDIENCE, Path.of("unused.json")).withClockSkew(SKEW),
        keys,
        Clock.fixed(NOW, ZoneOffset.UTC));
  }

  static String bearer(String token) {
    return "Bearer " + token;
  }

  /**
   * The Authorization header of a valid token of alice's for orders:read, as {@code change} alters
   * it.
   */
  static String aliceReading(UnaryOperator<JWTClaimsSet.Builder> change) {
    return bearer(TOKENS.rs256(change.apply(Tokens.claims(NOW, "alice", "orders:read")).build()));
  }

  /** The problem {@code authorization} is refused with. */
  Problem.Exception refusal(String authorization) {
    Throwable t =
        org.assertj.core.api.Assertions.catchThrowable(() -> auth.authenticate(authorization));
    assertThat(t).isInstanceOf(Problem.Exception.class);
    return (Problem.Exception) t;
  }

  void assertInvalidToken(String authorization, String detailContains) {
    Problem.Exception e = refusal(authorization);
    assertThat(e.problem().status()).isEqualTo(401);
    assertThat(e.problem().detail()).contains(detailContains);
    assertThat(e.headers().get("WWW-Authenticate"))
        .startsWith("Bearer realm=\"ordinal-orders\", error=\"invalid_token\", error_description=");
  }

  @Test
  void aGoodTokenNamesItsSubjectAndItsScopes() {
    Caller c =
        auth.authenticate(
            bearer(TOKENS.rs256(Tokens.claims(NOW, "alice", "orders:read orders:write").build())));
    assertThat(c.subject()).isEqualTo("alice");
    assertThat(c.scopes()).containsExactlyInAnyOrder("orders:read", "orders:write");
  }

  @Test
  void scopeTextAndTheScpListAreTakenTogether() {
    JWTClaimsSet claims =
        Tokens.claims(NOW, "bob", "orders:read")
            .claim("scp", List.of("orders:cancel", "orders:write"))
            .build();
    assertThat(auth.authenticate(bearer(TOKENS.rs256(claims))).scopes())
        .containsExactlyInAnyOrder("orders:read", "orders:cancel", "orders:write");
    JWTClaimsSet scpText =
        new JWTClaimsSet.Builder(Tokens.claims(NOW, "bob").build())
            .claim("scope", null)
            .claim("scp", "orders:read  orders:cancel")
            .build();
    assertThat(auth.authenticate(bearer(TOKENS.rs256(scpText))).scopes())
        .containsExactlyInAnyOrder("orders:read", "orders:cancel");
  }

  @Test
  void anEs256TokenIsTakenToo() {
    assertThat(
            auth.authenticate(bearer(TOKENS.es256(Tokens.claims(NOW, "carol", "a").build())))
                .subject())
        .isEqualTo("carol");
  }

  @Test
  void noHeaderGets401WithABareBearerChallenge() {
    for (String none : new String[] {null, "", "   "}) {
      Problem.Exception e = refusal(none);
      assertThat(e.problem().status()).isEqualTo(401);
      assertThat(e.headers()).containsEntry("WWW-Authenticate", "Bearer realm=\"ordinal-orders\"");
    }
  }

  @Test
  void anotherSchemeGets401() {
    Problem.Exception e = refusal("Basic YWxpY2U6c2VjcmV0");
    assertThat(e.problem().status()).isEqualTo(401);
    assertThat(e.problem().detail()).contains("Only bearer tokens");
    assertThat(e.headers()).containsEntry("WWW-Authenticate", "Bearer realm=\"ordinal-orders\"");
  }

  @Test
  void somethingThatIsNotAJwtGets401() {
    assertInvalidToken(bearer("not.a.jwt"), "not a JWT");
  }

  @Test
  void aTokenExpiredLongerAgoThanTheSkewGets401AndOneWithinItPasses() {
    String expired =
        aliceReading(c -> c.expirationTime(Date.from(NOW.minus(SKEW).minusSeconds(1))));
    assertInvalidToken(expired, "Expired JWT");
    String withinSkew =
        aliceReading(c -> c.expirationTime(Date.from(NOW.minus(SKEW).plusSeconds(1))));
    assertThat(auth.authenticate(withinSkew).subject()).isEqualTo("alice");
  }

  @Test
  void aTokenNotYetValidBeyondTheSkewGets401() {
    String early = aliceReading(c -> c.notBeforeTime(Date.from(NOW.plus(SKEW).plusSeconds(1))));
    assertInvalidToken(early, "before use time");
  }

  @Test
  void aTokenWithoutExpiryGets401() {
    assertInvalidToken(aliceReading(c -> c.expirationTime(null)), "exp");
  }

  @Test
  void anotherIssuerGets401() {
    assertInvalidToken(aliceReading(c -> c.issuer("https://elsewhere.test")), "iss");
  }

  @Test
  void anotherAudienceOrNoneGets403() {
    for (List<String> aud : List.of(List.of("billing"), List.<String>of())) {
      JWTClaimsSet claims = Tokens.claims(NOW, "alice", "orders:read").audience(aud).build();
      Problem.Exception e = refusal(bearer(TOKENS.rs256(claims)));
      assertThat(e.problem().status()).isEqualTo(403);
      assertThat(e.problem().detail()).contains("not for this API");
    }
    String both = aliceReading(c -> c.audience(List.of("billing", Tokens.AUDIENCE)));
    assertThat(auth.authenticate(both).subject()).isEqualTo("alice");
  }

  @Test
  void aTokenWithoutSubjectOrWithATooLongOneGets401() {
    assertInvalidToken(aliceReading(c -> c.subject(null)), "sub");
    JWTClaimsSet tooLong =
        Tokens.claims(NOW, "s".repeat(ApiAuth.MAX_SUBJECT_LENGTH + 1), "orders:read").build();
    assertInvalidToken(bearer(TOKENS.rs256(tooLong)), "1 to 255 characters");
    assertThat(
            auth.authenticate(
                    bearer(
                        TOKENS.rs256(
                            Tokens.claims(
                                    NOW, "s".repeat(ApiAuth.MAX_SUBJECT_LENGTH), "orders:read")
                                .build())))
                .subject())
        .hasSize(ApiAuth.MAX_SUBJECT_LENGTH);
  }

  @Test
  void aScopeClaimThatIsNeitherTextNorAListOfTextGets401() {
    JWTClaimsSet claims = Tokens.claims(NOW, "alice").claim("scope", 42).build();
    assertInvalidToken(bearer(TOKENS.rs256(claims)), "scope claim must be text");
  }

  @Test
  void aTokenSignedByAnotherKeyUnderTheSameKeyIdGets401() {
    String forged =
        Tokens.rs256(Tokens.claims(NOW, "alice", "orders:read").build(), Tokens.impostorKey());
    assertInvalidToken(bearer(forged), "refused");
  }

  @Test
  void aSymmetricOrUnsignedTokenGets401() throws Exception {
    byte[] secret = new byte[32];
    JWTClaimsSet claims = Tokens.claims(NOW, "alice", "orders:read").build();
    String hs256 = Tokens.sign(claims, JWSAlgorithm.HS256, "rsa-1", new MACSigner(secret));
    assertInvalidToken(bearer(hs256), "refused");
    // a key set holding the secret changes nothing: HS256 is not among the algorithms taken
    JwtAuthenticator withSecret =
        authenticator(
            new ImmutableJWKSet<>(
                new com.nimbusds.jose.jwk.JWKSet(
                    new OctetSequenceKey.Builder(secret).keyID("rsa-1").build())));
    assertThatThrownBy(() -> withSecret.authenticate(bearer(hs256)))
        .isInstanceOf(Problem.Exception.class)
        .matches(e -> ((Problem.Exception) e).problem().status() == 401);
    String unsigned = new PlainJWT(claims).serialize();
    assertInvalidToken(bearer(unsigned), "refused");
  }

  @Test
  void keysThatCannotBeFetchedGive503WithRetryAfter() {
    JwtAuthenticator down =
        authenticator(
            (selector, context) -> {
              throw new KeySourceException("Couldn't retrieve JWK set: connection refused");
            });
    Throwable t =
        org.assertj.core.api.Assertions.catchThrowable(
            () -> down.authenticate(bearer(TOKENS.token("alice", "orders:read"))));
    assertThat(t).isInstanceOf(Problem.Exception.class);
    Problem.Exception e = (Problem.Exception) t;
    assertThat(e.problem().status()).isEqualTo(503);
    assertThat(e.headers()).containsEntry("Retry-After", "5");
  }

  @Test
  void aMissingScopeGets403NamingIt() {
    Caller reader = new Caller("alice", Set.of("orders:read"));
    reader.require("orders:read");
    assertThatThrownBy(() -> reader.require("orders:cancel"))
        .isInstanceOfSatisfying(
            Problem.Exception.class,
            e -> {
              assertThat(e.problem().status()).isEqualTo(403);
              assertThat(e.problem().detail()).contains("orders:cancel");
              assertThat(e.headers())
                  .containsEntry(
                      "WWW-Authenticate",
                      "Bearer realm=\"ordinal-orders\", error=\"insufficient_scope\","
                          + " scope=\"orders:cancel\"");
            });
  }

  @Test
  void theKeysFileMustExistBeAKeySetAndHoldAnRsaOrEcKey(@TempDir Path dir) throws Exception {
    Path missing = dir.resolve("missing.json");
    assertThatThrownBy(() -> JwtAuthenticator.keys(ApiAuth.jwt("i", "a", missing)))
        .isInstanceOf(ConfigurationException.class)
        .hasMessageStartingWith("--jwks-file " + missing + " cannot be read");
    Path garbage = Files.writeString(dir.resolve("garbage.json"), "{\"keys\": 7}");
    assertThatThrownBy(() -> JwtAuthenticator.keys(ApiAuth.jwt("i", "a", garbage)))
        .isInstanceOf(ConfigurationException.class)
        .hasMessageStartingWith("--jwks-file " + garbage + " is not a JSON Web Key Set");
    Path secretOnly =
        Files.writeString(
            dir.resolve("secret.json"),
            new com.nimbusds.jose.jwk.JWKSet(
                    new OctetSequenceKey.Builder(new byte[32]).keyID("k").build())
                .toString(false));
    assertThatThrownBy(() -> JwtAuthenticator.keys(ApiAuth.jwt("i", "a", secretOnly)))
        .isInstanceOf(ConfigurationException.class)
        .hasMessage(
            "--jwks-file "
                + secretOnly
                + " holds no RSA or EC public key to check RS256 or ES256 signatures with");
    Path good = TOKENS.writeJwks(dir);
    JwtAuthenticator fromFile =
        new JwtAuthenticator(
            ApiAuth.jwt(Tokens.ISSUER, Tokens.AUDIENCE, good),
            JwtAuthenticator.keys(ApiAuth.jwt(Tokens.ISSUER, Tokens.AUDIENCE, good)),
            Clock.systemUTC());
    assertThat(fromFile.authenticate(bearer(TOKENS.token("dave", "orders:read"))).subject())
        .isEqualTo("dave");
  }
}

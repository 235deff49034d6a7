package dev.ordinal.lab.bench;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JOSEObjectType;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.RSASSASigner;
import com.nimbusds.jose.jwk.JWKSet;
import com.nimbusds.jose.jwk.RSAKey;
import com.nimbusds.jose.jwk.gen.RSAKeyGenerator;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import dev.ordinal.order.ApiAuth;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;

/**
 * A token issuer for the benchmarks: an RSA key made here, its public key set in a file, and one
 * RS256 token with every scope of the order API, so order-service runs with {@code --auth jwt} as
 * it would behind a real issuer.
 */
final class BenchIssuer {
  static final String ISSUER = "https://bench.ordinal.invalid";
  static final String AUDIENCE = "ordinal-orders";

  private final RSAKey key;
  private final Path jwks;

  /** A new key, its public key set written in {@code dir}. */
  BenchIssuer(Path dir) throws IOException {
    try {
      key = new RSAKeyGenerator(2048).keyID("bench").generate();
    } catch (JOSEException e) {
      throw new IllegalStateException(e);
    }
    jwks =
        Files.writeString(dir.resolve("bench-jwks.json"), new JWKSet(key.toPublicJWK()).toString());
  }

  /** order-service's authentication for tokens of this issuer. */
  ApiAuth auth() {
    return ApiAuth.jwt(ISSUER, AUDIENCE, jwks);
  }

  /** A token for {@code subject} with every scope, valid for {@code validity}. */
  String token(String subject, Duration validity) {
    Instant now = Instant.now();
    SignedJWT jwt =
        new SignedJWT(
            new JWSHeader.Builder(JWSAlgorithm.RS256)
                .keyID(key.getKeyID())
                .type(JOSEObjectType.JWT)
                .build(),
            new JWTClaimsSet.Builder()
                .issuer(ISSUER)
                .audience(AUDIENCE)
                .subject(subject)
                .issueTime(Date.from(now))
                .expirationTime(Date.from(now.plus(validity)))
                .claim(
                    "scope",
                    String.join(" ", ApiAuth.SCOPE_WRITE, ApiAuth.SCOPE_READ, ApiAuth.SCOPE_CANCEL))
                .build());
    try {
      jwt.sign(new RSASSASigner(key));
    } catch (JOSEException e) {
      throw new IllegalStateException(e);
    }
    return jwt.serialize();
  }
}

package dev.ordinal.testkit;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JOSEObjectType;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.JWSSigner;
import com.nimbusds.jose.crypto.ECDSASigner;
import com.nimbusds.jose.crypto.RSASSASigner;
import com.nimbusds.jose.jwk.Curve;
import com.nimbusds.jose.jwk.ECKey;
import com.nimbusds.jose.jwk.JWK;
import com.nimbusds.jose.jwk.JWKSet;
import com.nimbusds.jose.jwk.RSAKey;
import com.nimbusds.jose.jwk.gen.ECKeyGenerator;
import com.nimbusds.jose.jwk.gen.RSAKeyGenerator;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.List;

/**
 * An issuer for tests: an RSA and an EC key made here, their public JSON Web Key Set, and tokens
 * signed with them (RS256, ES256) for the claims a test chooses.
 */
public final class Tokens {
  public static final String ISSUER = "https://issuer.ordinal.test";
  public static final String AUDIENCE = "ordinal-orders";

  private final RSAKey rsa;
  private final ECKey ec;

  public Tokens() {
    try {
      rsa = new RSAKeyGenerator(2048).keyID("rsa-1").generate();
      ec = new ECKeyGenerator(Curve.P_256).keyID("ec-1").generate();
    } catch (JOSEException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Another RSA key with the same key id as this issuer's: its signatures must be refused. */
  public static RSAKey impostorKey() {
    try {
      return new RSAKeyGenerator(2048).keyID("rsa-1").generate();
    } catch (JOSEException e) {
      throw new IllegalStateException(e);
    }
  }

  /** The public keys, as the issuer publishes them. */
  public JWKSet publicKeys() {
    return new JWKSet(List.<JWK>of(rsa.toPublicJWK(), ec.toPublicJWK()));
  }

  /** The public keys written as {@code jwks.json} in {@code dir}. */
  public Path writeJwks(Path dir) throws IOException {
    return Files.writeString(dir.resolve("jwks.json"), publicKeys().toString());
  }

  /**
   * Claims of a good token at {@code now}: this issuer, this audience, {@code subject}, valid for 5
   * minutes, with {@code scopes} as the space-separated {@code scope}.
   */
  public static JWTClaimsSet.Builder claims(Instant now, String subject, String... scopes) {
    return new JWTClaimsSet.Builder()
        .issuer(ISSUER)
        .audience(AUDIENCE)
        .subject(subject)
        .issueTime(Date.from(now))
        .expirationTime(Date.from(now.plus(Duration.ofMinutes(5))))
        .claim("scope", String.join(" ", scopes));
  }

  /** A good token for {@code subject} with {@code scopes}, valid from now for 5 minutes. */
  public String token(String subject, String... scopes) {
    return rs256(claims(Instant.now(), subject, scopes).build());
  }

  /** {@code claims} signed with RS256 by this issuer's RSA key. */
  public String rs256(JWTClaimsSet claims) {
    return sign(claims, JWSAlgorithm.RS256, rsa.getKeyID(), rsaSigner(rsa));
  }

  /** {@code claims} signed with ES256 by this issuer's EC key. */
  public String es256(JWTClaimsSet claims) {
    try {
      return sign(claims, JWSAlgorithm.ES256, ec.getKeyID(), new ECDSASigner(ec));
    } catch (JOSEException e) {
      throw new IllegalStateException(e);
    }
  }

  /** {@code claims} signed with RS256 by {@code key}, under its key id. */
  public static String rs256(JWTClaimsSet claims, RSAKey key) {
    return sign(claims, JWSAlgorithm.RS256, key.getKeyID(), rsaSigner(key));
  }

  /** {@code claims} signed with {@code signer} for {@code algorithm}. */
  public static String sign(
      JWTClaimsSet claims, JWSAlgorithm algorithm, String keyId, JWSSigner signer) {
    SignedJWT jwt =
        new SignedJWT(
            new JWSHeader.Builder(algorithm).keyID(keyId).type(JOSEObjectType.JWT).build(), claims);
    try {
      jwt.sign(signer);
    } catch (JOSEException e) {
      throw new IllegalStateException(e);
    }
    return jwt.serialize();
  }

  private static JWSSigner rsaSigner(RSAKey key) {
    try {
      return new RSASSASigner(key);
    } catch (JOSEException e) {
      throw new IllegalStateException(e);
    }
  }
}

package dev.ordinal.order;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ordinal.messaging.ConfigurationException;
import dev.ordinal.messaging.db.DatabaseSettings;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The authentication and host settings, checked before anything starts. */
class OrderServiceSettingsTest {
  static final DatabaseSettings DB =
      new DatabaseSettings("jdbc:postgresql://localhost:5432/postgres", "postgres", "");

  static OrderServiceSettings.Builder builder() {
    return OrderServiceSettings.builder(DB);
  }

  @Test
  void withoutChoosingTheAuthenticationTheServiceIsRefused() {
    assertThatThrownBy(() -> builder().build())
        .isInstanceOf(ConfigurationException.class)
        .hasMessage(
            "order-service needs --auth: set --auth jwt with --jwt-issuer, --jwt-audience and"
                + " --jwks-file or --jwks-url, or --auth none for local use (every caller may"
                + " then read and cancel every order)");
  }

  @Test
  void noneIsTakenAndItsHostIsEveryInterfaceUnlessNarrowed() {
    OrderServiceSettings s = builder().auth(ApiAuth.none()).build();
    assertThat(s.auth().isNone()).isTrue();
    assertThat(s.host()).isEqualTo("0.0.0.0");
    assertThat(builder().auth(ApiAuth.none()).host("127.0.0.1").build().host())
        .isEqualTo("127.0.0.1");
  }

  @Test
  void jwtNeedsIssuerAudienceAndOneKeySource() {
    assertThatThrownBy(() -> ApiAuth.jwt(null, "a", Path.of("k.json")))
        .hasMessage("--auth jwt needs --jwt-issuer: the issuer (iss) its tokens name");
    assertThatThrownBy(() -> ApiAuth.jwt("i", null, Path.of("k.json")))
        .hasMessage("--auth jwt needs --jwt-audience: the audience (aud) of tokens for this API");
    assertThatThrownBy(() -> ApiAuth.jwt("i", "a", (Path) null))
        .hasMessage("--auth jwt needs --jwks-file or --jwks-url: the keys that sign the tokens");
    assertThatThrownBy(
            () ->
                new ApiAuth(
                    ApiAuth.Mode.JWT,
                    "i",
                    "a",
                    Path.of("k.json"),
                    URI.create("https://issuer.example/jwks"),
                    null))
        .hasMessage("--jwks-file and --jwks-url are both set: set one of them");
  }

  @Test
  void theCommandLinesValuesAreCheckedTheSameWay() {
    var b =
        builder()
            .set(ApiAuth.AUTH, "jwt")
            .set(ApiAuth.JWT_ISSUER, "https://issuer.example")
            .set(ApiAuth.JWT_AUDIENCE, "orders");
    assertThatThrownBy(b::build)
        .isInstanceOf(ConfigurationException.class)
        .hasMessage("--auth jwt needs --jwks-file or --jwks-url: the keys that sign the tokens");
    OrderServiceSettings s = b.set(ApiAuth.JWKS_URL, "https://issuer.example/jwks").build();
    assertThat(s.auth().jwksUrl()).isEqualTo(URI.create("https://issuer.example/jwks"));
    assertThat(s.auth().clockSkew()).isEqualTo(Duration.ofSeconds(60));
    assertThat(s.toBuilder().build()).isEqualTo(s);
    assertThatThrownBy(() -> builder().set(ApiAuth.AUTH, "basic").build())
        .hasMessage("--auth must be jwt or none, not basic");
  }

  @Test
  void noneWithJwtSettingsIsRefusedAsAContradiction() {
    assertThatThrownBy(
            () ->
                builder()
                    .set(ApiAuth.AUTH, "none")
                    .set(ApiAuth.JWT_ISSUER, "https://issuer.example")
                    .build())
        .hasMessage("--jwt-issuer is set but --auth is none: remove it, or use --auth jwt");
  }

  @Test
  void theKeysUrlIsHttpsOrOnThisMachine() {
    assertThatThrownBy(
            () -> ApiAuth.jwt("i", "a", URI.create("http://issuer.example/.well-known/jwks.json")))
        .hasMessage(
            "--jwks-url must be an https URL (http only on this machine), not"
                + " http://issuer.example/.well-known/jwks.json");
    assertThat(ApiAuth.jwt("i", "a", URI.create("http://127.0.0.1:8099/jwks")).jwksUrl())
        .hasToString("http://127.0.0.1:8099/jwks");
    assertThat(ApiAuth.jwt("i", "a", URI.create("http://localhost/jwks")).jwksUrl().getHost())
        .isEqualTo("localhost");
    // what the banner and logs show leaves out what may be a credential
    assertThat(
            ApiAuth.jwt("i", "a", URI.create("https://user:secret@issuer.example:8443/jwks?t=x"))
                .keysDescription())
        .isEqualTo("https://issuer.example:8443/jwks");
  }

  @Test
  void theClockSkewIsZeroToFiveMinutes() {
    ApiAuth auth = ApiAuth.jwt("i", "a", Path.of("k.json"));
    assertThat(auth.withClockSkew(Duration.ZERO).clockSkew()).isZero();
    assertThat(auth.withClockSkew(Duration.ofMinutes(5)).clockSkew())
        .isEqualTo(Duration.ofMinutes(5));
    assertThatThrownBy(() -> auth.withClockSkew(Duration.ofMinutes(6)))
        .hasMessageStartingWith("--jwt-clock-skew must be 0s to 5m, not");
  }
}

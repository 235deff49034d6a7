package dev.ordinal.order;

import static dev.ordinal.messaging.ConfigurationException.check;

import dev.ordinal.messaging.ConfigurationException;
import dev.ordinal.runtime.settings.Check;
import dev.ordinal.runtime.settings.Setting;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.Objects;

/**
 * How callers of the order API are authenticated, checked once by the compact constructor (each
 * problem one {@link ConfigurationException} sentence naming the option).
 *
 * <ul>
 *   <li>{@link Mode#JWT}: every request carries {@code Authorization: Bearer <JWT>}, signed with
 *       RS256 or ES256 by a key of the JSON Web Key Set ({@code jwksFile} or {@code jwksUrl}),
 *       naming {@code issuer} as {@code iss}, including {@code audience} in {@code aud}, with an
 *       {@code exp} not past and an {@code nbf} (if any) reached, both within {@code clockSkew},
 *       and a {@code sub}: the caller, who owns the orders and idempotency keys it places. Its
 *       scopes ({@code scope}, space-separated, and/or the {@code scp} list) say what it may do:
 *       {@link #SCOPE_WRITE}, {@link #SCOPE_READ}, {@link #SCOPE_CANCEL}.
 *   <li>{@link Mode#NONE}: no authentication, for local use: every caller is {@link #ANONYMOUS}
 *       with every scope, so may read and cancel every order placed so.
 * </ul>
 *
 * @param mode jwt or none; there is no default: a service must be told which
 * @param issuer with jwt: the {@code iss} every token must name, exactly; otherwise null
 * @param audience with jwt: the value {@code aud} must include; otherwise null
 * @param jwksFile with jwt: a JSON Web Key Set file read at start; or null for {@code jwksUrl}
 * @param jwksUrl with jwt: the issuer's JSON Web Key Set, fetched when needed and cached; or null
 * @param clockSkew how far {@code exp} and {@code nbf} may be off this host's clock
 */
public record ApiAuth(
    Mode mode, String issuer, String audience, Path jwksFile, URI jwksUrl, Duration clockSkew) {

  /** How callers are authenticated. */
  public enum Mode {
    JWT,
    NONE
  }

  /** The one caller of {@link Mode#NONE}; also the owner of rows written before owners existed. */
  public static final String ANONYMOUS = "anonymous";

  /** The scope that lets a caller place orders ({@code POST /orders}). */
  public static final String SCOPE_WRITE = "orders:write";

  /** The scope that lets a caller read its orders ({@code GET /orders/{id}}). */
  public static final String SCOPE_READ = "orders:read";

  /** The scope that lets a caller cancel its orders ({@code POST /orders/{id}/cancel}). */
  public static final String SCOPE_CANCEL = "orders:cancel";

  /** The longest {@code sub} a caller may have: the owner columns' width. */
  public static final int MAX_SUBJECT_LENGTH = 255;

  public static final Duration DEFAULT_CLOCK_SKEW = Duration.ofSeconds(60);
  public static final Duration MAX_CLOCK_SKEW = Duration.ofMinutes(5);

  /** {@code --auth}: no default, so a service started without choosing is refused. */
  public static final Setting<String> AUTH =
      Setting.optionalString(
          "auth",
          "not set: refused",
          "How callers of the HTTP API are authenticated: jwt (bearer tokens, see the --jwt-*"
              + " and --jwks-* options) or none (local use only: every caller is 'anonymous' and"
              + " may read and cancel every order)",
          Check.matches("jwt|none", "jwt or none"));

  public static final Setting<String> JWT_ISSUER =
      Setting.optionalString(
          "jwt-issuer",
          "none",
          "With --auth jwt: the issuer (iss) every token must name, exactly",
          Check.notBlank());
  public static final Setting<String> JWT_AUDIENCE =
      Setting.optionalString(
          "jwt-audience",
          "none",
          "With --auth jwt: the audience (aud) a token must include; a token for another gets 403",
          Check.notBlank());
  public static final Setting<String> JWKS_FILE =
      Setting.optionalString(
          "jwks-file",
          "none",
          "With --auth jwt: a JSON Web Key Set file of the keys that sign the tokens (RS256 or"
              + " ES256), read at start",
          Check.notBlank());
  public static final Setting<String> JWKS_URL =
      Setting.optionalString(
          "jwks-url",
          "none",
          "With --auth jwt: the issuer's JSON Web Key Set URL (https; http on this machine only),"
              + " fetched when first needed, kept 5 minutes, fetched again for an unknown key (at most"
              + " once per 30s)",
          ApiAuth::jwksUrlProblem);
  public static final Setting<Duration> JWT_CLOCK_SKEW =
      Setting.duration(
          "jwt-clock-skew",
          DEFAULT_CLOCK_SKEW,
          "With --auth jwt: how far a token's exp and nbf may be off this host's clock, 0s to 5m",
          Check.between(Duration.ZERO, MAX_CLOCK_SKEW, "0s to 5m"));

  /** The sentence that refuses a service whose authentication was not chosen. */
  public static final String NOT_CHOSEN =
      "order-service needs --auth: set --auth jwt with --jwt-issuer, --jwt-audience and"
          + " --jwks-file or --jwks-url, or --auth none for local use (every caller may then read"
          + " and cancel every order)";

  public ApiAuth {
    Objects.requireNonNull(mode, "mode");
    clockSkew = clockSkew == null ? DEFAULT_CLOCK_SKEW : clockSkew;
    check(JWT_CLOCK_SKEW, clockSkew);
    if (mode == Mode.NONE) {
      notWithNone(JWT_ISSUER, issuer);
      notWithNone(JWT_AUDIENCE, audience);
      notWithNone(JWKS_FILE, jwksFile);
      notWithNone(JWKS_URL, jwksUrl);
    } else {
      required(JWT_ISSUER, issuer, "the issuer (iss) its tokens name");
      check(JWT_ISSUER, issuer);
      required(JWT_AUDIENCE, audience, "the audience (aud) of tokens for this API");
      check(JWT_AUDIENCE, audience);
      if (jwksFile == null && jwksUrl == null) {
        throw new ConfigurationException(
            "--auth jwt needs "
                + JWKS_FILE.option()
                + " or "
                + JWKS_URL.option()
                + ": the keys that sign the tokens");
      }
      if (jwksFile != null && jwksUrl != null) {
        throw new ConfigurationException(
            JWKS_FILE.option() + " and " + JWKS_URL.option() + " are both set: set one of them");
      }
      if (jwksUrl != null) {
        check(JWKS_URL, jwksUrl.toString());
      }
    }
  }

  /** No authentication: every caller is {@link #ANONYMOUS}. For local use only. */
  public static ApiAuth none() {
    return new ApiAuth(Mode.NONE, null, null, null, null, null);
  }

  /** Bearer JWTs signed by the keys of a JSON Web Key Set file, read at start. */
  public static ApiAuth jwt(String issuer, String audience, Path jwksFile) {
    return new ApiAuth(Mode.JWT, issuer, audience, jwksFile, null, null);
  }

  /** Bearer JWTs signed by the keys the issuer publishes at {@code jwksUrl}. */
  public static ApiAuth jwt(String issuer, String audience, URI jwksUrl) {
    return new ApiAuth(Mode.JWT, issuer, audience, null, jwksUrl, null);
  }

  /** This authentication with another clock skew. */
  public ApiAuth withClockSkew(Duration skew) {
    return new ApiAuth(mode, issuer, audience, jwksFile, jwksUrl, skew);
  }

  public boolean isNone() {
    return mode == Mode.NONE;
  }

  /**
   * Where the keys come from, fit for a log line: the file, or the URL without its user info, query
   * and fragment (which may hold credentials); null with {@link Mode#NONE}.
   */
  public String keysDescription() {
    if (jwksFile != null) {
      return jwksFile.toString();
    }
    if (jwksUrl == null) {
      return null;
    }
    return jwksUrl.getScheme()
        + "://"
        + jwksUrl.getHost()
        + (jwksUrl.getPort() < 0 ? "" : ":" + jwksUrl.getPort())
        + (jwksUrl.getRawPath() == null ? "" : jwksUrl.getRawPath());
  }

  /**
   * The authentication the settings' values describe: null when {@code auth} is null (not chosen,
   * which {@link OrderServiceSettings} refuses with {@link #NOT_CHOSEN}).
   *
   * @throws ConfigurationException naming the first value that is wrong
   */
  public static ApiAuth of(
      String auth,
      String issuer,
      String audience,
      String jwksFile,
      String jwksUrl,
      Duration clockSkew) {
    if (auth == null) {
      return null;
    }
    check(AUTH, auth);
    check(JWKS_URL, jwksUrl);
    return new ApiAuth(
        Mode.valueOf(auth.toUpperCase(Locale.ROOT)),
        issuer,
        audience,
        jwksFile == null ? null : Path.of(jwksFile),
        jwksUrl == null ? null : URI.create(jwksUrl.trim()),
        clockSkew);
  }

  /** The text {@link #AUTH} takes for this mode. */
  String modeText() {
    return mode.name().toLowerCase(Locale.ROOT);
  }

  private static void notWithNone(Setting<?> setting, Object value) {
    if (value != null) {
      throw new ConfigurationException(
          setting.option() + " is set but --auth is none: remove it, or use --auth jwt");
    }
  }

  private static void required(Setting<?> setting, Object value, String what) {
    if (value == null) {
      throw new ConfigurationException("--auth jwt needs " + setting.option() + ": " + what);
    }
  }

  /** Null for an https URL, or an http one on this machine; otherwise what is wrong. */
  static String jwksUrlProblem(String value) {
    URI u;
    try {
      u = new URI(value.trim());
    } catch (URISyntaxException e) {
      return "must be a URL, not " + value;
    }
    String scheme = u.getScheme() == null ? "" : u.getScheme().toLowerCase(Locale.ROOT);
    String host = u.getHost();
    if (host != null && (scheme.equals("https") || scheme.equals("http") && isThisMachine(host))) {
      return null;
    }
    return "must be an https URL (http only on this machine), not " + value;
  }

  private static boolean isThisMachine(String host) {
    String h = host.toLowerCase(Locale.ROOT);
    return h.equals("localhost") || h.startsWith("127.") || h.equals("[::1]") || h.equals("::1");
  }
}

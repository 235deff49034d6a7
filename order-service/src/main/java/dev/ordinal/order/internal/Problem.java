package dev.ordinal.order.internal;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Map;

/**
 * An RFC 9457 problem-details answer: HTTP status, a short title, one sentence of detail, and the
 * request field it is about (null when it is about the request as a whole).
 */
public record Problem(int status, String title, String detail, String field) {
  public static final String CONTENT_TYPE = "application/problem+json";
  private static final ObjectMapper JSON = new ObjectMapper();

  public static Problem badRequest(String field, String detail) {
    return new Problem(400, "Malformed request", detail, field);
  }

  public static Problem invalid(String field, String detail) {
    return new Problem(422, "Invalid field", detail, field);
  }

  public static Problem tooLarge(long maxBytes) {
    return new Problem(
        413, "Body too large", "The request body is larger than " + maxBytes + " bytes.", "body");
  }

  public static Problem notFound(String field, String detail) {
    return new Problem(404, "Not found", detail, field);
  }

  public static Problem conflict(String detail) {
    return new Problem(409, "Conflict", detail, null);
  }

  /** 401: no credentials, or ones that are not valid; sent with {@code WWW-Authenticate}. */
  public static Problem unauthorized(String detail) {
    return new Problem(401, "Unauthorized", detail, "Authorization");
  }

  /** 403: valid credentials that do not allow this request. */
  public static Problem forbidden(String detail) {
    return new Problem(403, "Forbidden", detail, "Authorization");
  }

  /** 503: a server this service needs does not answer; sent with {@code Retry-After}. */
  public static Problem unavailable(String detail) {
    return new Problem(503, "Service unavailable", detail, null);
  }

  public String toJson() {
    ObjectNode n = JSON.createObjectNode();
    n.put("type", "about:blank");
    n.put("title", title);
    n.put("status", status);
    n.put("detail", detail);
    if (field != null) {
      n.put("field", field);
    }
    return n.toString();
  }

  /**
   * Thrown to answer with this problem, and the response headers it names; nothing has been written
   * when it is thrown.
   */
  public static final class Exception extends RuntimeException {
    private final Problem problem;
    private final Map<String, String> headers;

    public Exception(Problem problem) {
      this(problem, Map.of());
    }

    public Exception(Problem problem, Map<String, String> headers) {
      super(problem.detail(), null, false, false);
      this.problem = problem;
      this.headers = Map.copyOf(headers);
    }

    public Problem problem() {
      return problem;
    }

    /**
     * Response headers to send with the problem ({@code WWW-Authenticate}, {@code Retry-After}).
     */
    public Map<String, String> headers() {
      return headers;
    }
  }

  public Exception toException() {
    return new Exception(this);
  }

  /** The exception answering with this problem and {@code name: value}. */
  public Exception toException(String name, String value) {
    return new Exception(this, Map.of(name, value));
  }
}

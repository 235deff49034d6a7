package dev.ordinal.contracts;

/**
 * A payload that is not the event it claims to be: not JSON, a required field missing or blank, or
 * a field of the wrong form. Thrown by {@link EventCodec} when reading and by the records'
 * constructors. Retrying does not help: a consumer treats it as poison (billing dead-letters the
 * message, the monitor skips it).
 */
public final class MalformedEventException extends IllegalArgumentException {
  private static final long serialVersionUID = 1L;

  private enum Kind {
    MISSING,
    MALFORMED,
    NOT_JSON,
    NOT_AN_OBJECT
  }

  private final EventType type;
  private final Kind kind;
  private final String field;
  private final String detail;

  private MalformedEventException(
      EventType type, Kind kind, String field, String detail, Throwable cause) {
    super(message(type, kind, field, detail), cause);
    this.type = type;
    this.kind = kind;
    this.field = field;
    this.detail = detail;
  }

  private static String message(EventType type, Kind kind, String field, String detail) {
    String what =
        switch (kind) {
          case MISSING -> "has no " + field;
          case MALFORMED -> "has a malformed " + field + ": " + detail;
          case NOT_JSON -> "is not JSON: " + detail;
          case NOT_AN_OBJECT -> "is not a JSON object of its fields: " + detail;
        };
    return type.wireName() + " payload " + what;
  }

  /** {@code "OrderPlaced payload has no total"}. */
  static MalformedEventException missing(EventType type, String field) {
    return new MalformedEventException(type, Kind.MISSING, field, null, null);
  }

  /** {@code "OrderPlaced payload has a malformed orderId: ..."}. */
  static MalformedEventException malformed(
      EventType type, String field, String detail, Throwable cause) {
    return new MalformedEventException(type, Kind.MALFORMED, field, detail, cause);
  }

  /** {@code "OrderPlaced payload is not JSON: ..."}. */
  static MalformedEventException notJson(EventType type, String detail, Throwable cause) {
    return new MalformedEventException(type, Kind.NOT_JSON, null, detail, cause);
  }

  /** JSON, but not an object holding the event's fields (an array, a string...). */
  static MalformedEventException notAnObject(EventType type, String detail, Throwable cause) {
    return new MalformedEventException(type, Kind.NOT_AN_OBJECT, null, detail, cause);
  }

  /** The same problem, its field named from {@code path} down: {@code lines[0].sku}. */
  MalformedEventException under(String path) {
    if (path.isEmpty() || field == null) {
      return this;
    }
    return new MalformedEventException(type, kind, path + "." + field, detail, getCause());
  }

  /** The event the payload claimed to be. */
  public EventType type() {
    return type;
  }

  /**
   * The offending field ({@code total}, {@code lines[0].sku}), or null when the payload as a whole
   * is not one (not JSON, not an object).
   */
  public String field() {
    return field;
  }
}

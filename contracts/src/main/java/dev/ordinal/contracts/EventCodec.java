package dev.ordinal.contracts;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.deser.std.StdScalarDeserializer;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.module.SimpleModule;
import com.fasterxml.jackson.databind.ser.std.StdSerializer;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Objects;
import java.util.function.Function;

/**
 * Writes and reads the events' JSON, the one place that does. Writing gives the bytes order-service
 * and billing have always written: fields in the records' order, no spaces, optional fields left
 * out when absent, amounts as strings in plain notation ({@code "12.50"}), instants as ISO-8601
 * strings in UTC as {@link Instant#toString()} writes them. Reading ignores unknown fields and
 * refuses a payload that is not the event with a {@link MalformedEventException} naming the field.
 * Thread-safe.
 */
public final class EventCodec {
  private static final ObjectMapper JSON =
      JsonMapper.builder()
          .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
          .addModule(
              new SimpleModule("ordinal-contracts")
                  .addSerializer(
                      BigDecimal.class,
                      new StringSerializer<>(BigDecimal.class, BigDecimal::toPlainString))
                  .addSerializer(
                      Instant.class, new StringSerializer<>(Instant.class, Instant::toString))
                  .addDeserializer(Instant.class, new InstantDeserializer()))
          .build();

  private EventCodec() {}

  /** The payload's JSON, as it goes into the outbox. */
  public static String toJson(EventPayload event) {
    Objects.requireNonNull(event, "event");
    try {
      return JSON.writeValueAsString(event);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("Cannot write " + event.type().wireName() + " as JSON", e);
    }
  }

  /** The {@code type} payload {@code json} holds. */
  public static EventPayload fromJson(EventType type, String json) {
    return fromJson(json, type.payloadType());
  }

  /** The {@code type} payload the UTF-8 bytes {@code json} hold. */
  public static EventPayload fromJson(EventType type, byte[] json) {
    return fromJson(json, type.payloadType());
  }

  /** The payload of record type {@code type} that {@code json} holds. */
  public static <T extends EventPayload> T fromJson(String json, Class<T> type) {
    EventType eventType = eventType(type);
    if (json == null || json.isBlank()) {
      throw MalformedEventException.notJson(eventType, "no content", null);
    }
    try {
      return JSON.readValue(json, type);
    } catch (IOException e) {
      throw refused(eventType, e);
    }
  }

  /** The payload of record type {@code type} that the UTF-8 bytes {@code json} hold. */
  public static <T extends EventPayload> T fromJson(byte[] json, Class<T> type) {
    EventType eventType = eventType(type);
    if (json == null || new String(json, StandardCharsets.UTF_8).isBlank()) {
      throw MalformedEventException.notJson(eventType, "no content", null);
    }
    try {
      return JSON.readValue(json, type);
    } catch (IOException e) {
      throw refused(eventType, e);
    }
  }

  private static EventType eventType(Class<? extends EventPayload> type) {
    for (EventType t : EventType.values()) {
      if (t.payloadType() == type) {
        return t;
      }
    }
    throw new IllegalArgumentException("Not a payload of this contract: " + type.getName());
  }

  /** What Jackson said, as the contract says it: which field, and what is wrong with it. */
  private static MalformedEventException refused(EventType type, IOException e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof MalformedEventException m) {
        // a record's constructor refused a field; Jackson knows where that record sits
        return e instanceof JsonMappingException jm ? m.under(path(jm)) : m;
      }
    }
    if (e instanceof JsonMappingException jm) {
      String field = path(jm);
      if (!field.isEmpty()) {
        return MalformedEventException.malformed(type, field, jm.getOriginalMessage(), e);
      }
      if (e instanceof MismatchedInputException) {
        return MalformedEventException.notAnObject(type, jm.getOriginalMessage(), e);
      }
    }
    String detail =
        e instanceof JsonProcessingException jp ? jp.getOriginalMessage() : e.getMessage();
    return MalformedEventException.notJson(type, detail, e);
  }

  /** {@code lines[0].sku} for Jackson's path to the offending value. */
  private static String path(JsonMappingException e) {
    StringBuilder path = new StringBuilder();
    for (JsonMappingException.Reference r : e.getPath()) {
      if (r.getFieldName() != null) {
        if (path.length() > 0) {
          path.append('.');
        }
        path.append(r.getFieldName());
      } else if (r.getIndex() >= 0) {
        path.append('[').append(r.getIndex()).append(']');
      }
    }
    return path.toString();
  }

  /**
   * A value written as the JSON string {@code text} makes of it: {@code "12.50"} for an amount
   * (plain notation, the scale as given), {@code "2026-03-02T12:00:00.123456Z"} for an instant
   * ({@link Instant#toString()}).
   */
  private static final class StringSerializer<T> extends StdSerializer<T> {
    private final Function<T, String> text;

    StringSerializer(Class<T> type, Function<T, String> text) {
      super(type);
      this.text = text;
    }

    @Override
    public void serialize(T value, JsonGenerator g, SerializerProvider provider)
        throws IOException {
      g.writeString(text.apply(value));
    }
  }

  /** An ISO-8601 instant ({@link Instant#parse}); anything else is refused. */
  private static final class InstantDeserializer extends StdScalarDeserializer<Instant> {
    InstantDeserializer() {
      super(Instant.class);
    }

    @Override
    public Instant deserialize(JsonParser p, DeserializationContext ctxt) throws IOException {
      if (!p.hasToken(JsonToken.VALUE_STRING)) {
        return (Instant) ctxt.handleUnexpectedToken(Instant.class, p);
      }
      String text = p.getText();
      if (text.isBlank()) {
        return null;
      }
      try {
        return Instant.parse(text);
      } catch (DateTimeParseException e) {
        return (Instant)
            ctxt.handleWeirdStringValue(Instant.class, text, "not an ISO-8601 instant in UTC");
      }
    }
  }
}

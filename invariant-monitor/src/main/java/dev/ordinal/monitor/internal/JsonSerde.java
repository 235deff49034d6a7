package dev.ordinal.monitor.internal;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serializer;

/** JSON (Jackson) serde for the monitor's state, internal topic and alert values. */
public final class JsonSerde<T> implements Serde<T> {
  static final ObjectMapper MAPPER =
      new ObjectMapper().configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);

  private final Class<T> type;

  public JsonSerde(Class<T> type) {
    this.type = type;
  }

  @Override
  public Serializer<T> serializer() {
    return (topic, value) -> {
      if (value == null) {
        return null;
      }
      try {
        return MAPPER.writeValueAsBytes(value);
      } catch (IOException e) {
        throw new SerializationException("Cannot write " + type.getSimpleName() + " as JSON", e);
      }
    };
  }

  @Override
  public Deserializer<T> deserializer() {
    return (topic, bytes) -> {
      if (bytes == null) {
        return null;
      }
      try {
        return MAPPER.readValue(bytes, type);
      } catch (IOException e) {
        throw new SerializationException("Cannot read " + type.getSimpleName() + " from JSON", e);
      }
    };
  }
}

package dev.ordinal.relay;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ordinal.relay.internal.DebeziumProperties;
import dev.ordinal.relay.internal.MonotonicOffsetStore;
import dev.ordinal.relay.internal.SlotPosition;
import dev.ordinal.testkit.OrdinalStackExtension;
import dev.ordinal.testkit.TestNamespace;
import io.debezium.embedded.EmbeddedWorkerConfig;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The relay's offset store never moves the stored position back: what a leader that lost the lead
 * without noticing would write when it wakes.
 */
@ExtendWith(OrdinalStackExtension.class)
class MonotonicOffsetStoreIT {
  static final String KEY = "[\"ordinal-relay-s\",{\"server\":\"s\"}]";

  @Test
  void aPositionBehindTheStoredOneIsNotWrittenAndALaterOneIs(TestNamespace ns) throws Exception {
    try (RelayFixture fx = RelayFixture.create(ns)) {
      RelayConfig config = fx.config("offsets").build();
      MonotonicOffsetStore newLeader = store(config);
      MonotonicOffsetStore oldLeader = store(config);
      try {
        set(newLeader, 2_000);
        assertThat(storedLsn(fx, config)).isEqualTo(2_000);

        set(oldLeader, 1_000); // woken with the position it had before the freeze
        assertThat(storedLsn(fx, config)).isEqualTo(2_000);

        set(newLeader, 3_000);
        assertThat(storedLsn(fx, config)).isEqualTo(3_000);
        set(newLeader, 3_000); // the same position again (an idle flush) is written
        assertThat(storedLsn(fx, config)).isEqualTo(3_000);
      } finally {
        newLeader.stop();
        oldLeader.stop();
      }
      // a store started now reads the position the new leader stored
      MonotonicOffsetStore next = store(config);
      try {
        ByteBuffer v = next.get(List.of(bytes(KEY))).get(10, TimeUnit.SECONDS).get(bytes(KEY));
        assertThat(StandardCharsets.UTF_8.decode(v).toString()).contains("\"lsn\":3000");
      } finally {
        next.stop();
      }
    }
  }

  private static MonotonicOffsetStore store(RelayConfig config) {
    Properties p = DebeziumProperties.of(config);
    Map<String, String> m = new HashMap<>();
    p.stringPropertyNames().forEach(k -> m.put(k, p.getProperty(k)));
    MonotonicOffsetStore store = new MonotonicOffsetStore();
    store.configure(new EmbeddedWorkerConfig(m));
    store.start();
    return store;
  }

  private static void set(MonotonicOffsetStore store, long lsn) throws Exception {
    String value = "{\"lsn\":" + lsn + ",\"lsn_commit\":" + lsn + ",\"txId\":7}";
    store.set(Map.of(bytes(KEY), bytes(value)), null).get(10, TimeUnit.SECONDS);
  }

  private static long storedLsn(RelayFixture fx, RelayConfig config) {
    return SlotPosition.stored(fx.owner, config).orElseThrow().lsn();
  }

  private static ByteBuffer bytes(String s) {
    return ByteBuffer.wrap(s.getBytes(StandardCharsets.UTF_8));
  }
}

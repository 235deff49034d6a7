package dev.ordinal.console;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** The plots' last hour: one sample per 10 s at most, an hour kept, a series absent as null. */
class HistoryTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Instant T0 = Instant.parse("2026-12-06T00:00:00Z");

  @Test
  void keepsOneSampleEveryTenSecondsForAnHour() {
    History h = new History();
    // a snapshot every 2 s for 2 hours: one of five is kept, the last hour only
    for (int s = 0; s <= 7200; s += 2) {
      h.record(snapshot(s, s, s >= 7000 ? 5L : null));
    }
    assertThat(h.size()).isEqualTo(361);
    ObjectNode json = h.toJson();
    assertThat(json.get("lag").get("t").get(0).asLong()).isEqualTo(T0.getEpochSecond() + 3600);
    assertThat(json.get("lag").get("t").get(360).asLong()).isEqualTo(T0.getEpochSecond() + 7200);
    assertThat(json.get("lag").get("series").get("billing").get(360).asLong()).isEqualTo(7200);
    // a group that appeared late: null before it
    var late = json.get("lag").get("series").get("late");
    assertThat(late.get(339).isNull()).isTrue();
    assertThat(late.get(340).asLong()).isEqualTo(5);
    assertThat(json.get("slot").get("series").get("orders_slot").get(0).asLong()).isEqualTo(1024);
  }

  private static ObjectNode snapshot(int second, long lag, Long late) {
    ObjectNode s = JSON.createObjectNode();
    s.put("takenAt", T0.plusSeconds(second).toString());
    var groups = s.putArray("groups");
    groups.addObject().put("group", "billing").put("lag", lag);
    if (late != null) {
      groups.addObject().put("group", "late").put("lag", late);
    }
    s.putArray("slots").addObject().put("slot", "orders_slot").put("restartLagBytes", 1024);
    return s;
  }
}

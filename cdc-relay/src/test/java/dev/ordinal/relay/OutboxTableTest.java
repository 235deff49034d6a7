package dev.ordinal.relay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ordinal.messaging.ConfigurationException;
import dev.ordinal.relay.OutboxTable.Column;
import dev.ordinal.relay.OutboxTable.PayloadType;
import java.util.List;
import org.junit.jupiter.api.Test;

class OutboxTableTest {
  @Test
  void columnsKeepOrdinalsNamesButThoseRenamed() {
    OutboxTable t =
        OutboxTable.of(
            "events", List.of("aggregate_id=entity_id", "traceparent=none"), PayloadType.TEXT);
    assertThat(t.column(Column.AGGREGATE_ID)).isEqualTo("entity_id");
    assertThat(t.column(Column.ID)).isEqualTo("id");
    assertThat(t.column(Column.TRACEPARENT)).isNull();
    assertThat(t.qualified("shop")).isEqualTo("shop.events");
    assertThat(t.isDefault()).isFalse();
    assertThat(OutboxTable.of("outbox", List.of(), PayloadType.JSONB).isDefault()).isTrue();
  }

  @Test
  void aMalformedColumnIsRefusedWithOneSentenceNamingTheOption() {
    assertThatThrownBy(() -> OutboxTable.of("events", List.of("entity_id"), PayloadType.JSONB))
        .isInstanceOf(ConfigurationException.class)
        .hasMessage("--outbox-column must be ordinal-name=column, not entity_id");
    assertThatThrownBy(() -> OutboxTable.of("events", List.of("key=entity_id"), PayloadType.JSONB))
        .isInstanceOf(ConfigurationException.class)
        .hasMessageStartingWith("--outbox-column names no column of Ordinal's");
    assertThatThrownBy(
            () -> OutboxTable.of("events", List.of("payload=body; drop"), PayloadType.JSONB))
        .isInstanceOf(ConfigurationException.class)
        .hasMessageStartingWith(
            "--outbox-column names a column that is not a PostgreSQL identifier");
    assertThatThrownBy(
            () -> OutboxTable.of("events", List.of("payload=a", "payload=b"), PayloadType.JSONB))
        .isInstanceOf(ConfigurationException.class)
        .hasMessageStartingWith("--outbox-column names a column twice");
    assertThatThrownBy(() -> OutboxTable.of("bad-name", List.of(), PayloadType.JSONB))
        .isInstanceOf(ConfigurationException.class)
        .hasMessageStartingWith("--outbox-table must be a PostgreSQL identifier");
  }

  @Test
  void setupSqlGrantsAndPublishesATeamsOwnTableAndNoOutboxRelayed() {
    RelayConfig config =
        RelayConfig.builder(
                new dev.ordinal.messaging.db.DatabaseSettings(
                    "jdbc:postgresql://db:5432/shop", "owner", "secret"),
                "kafka:9092",
                "shop",
                "ordinal")
            .outbox(TeamOutbox.TABLE, null)
            .build();
    String sql = RelaySetup.sql(List.of(config), "relay", "pw");
    assertThat(sql)
        .contains("grant select on table \"shop\".\"parcel_events\" to \"relay\"")
        .contains("for table \"shop\".\"parcel_events\"")
        .doesNotContain("outbox_relayed")
        .contains("-- as the owner of shop.parcel_events");
  }
}

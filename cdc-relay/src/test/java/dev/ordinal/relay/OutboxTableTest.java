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
  void tracestateIsOrdinalsOwnOutboxsAndATeamTablesOnlyWhenNamed() {
    assertThat(OutboxTable.DEFAULT.column(Column.TRACESTATE)).isEqualTo("tracestate");
    assertThat(OutboxTable.DEFAULT.renames()).isEmpty();
    // a team's table set up before the column existed reads as it did: no tracestate
    OutboxTable team =
        OutboxTable.of(
            "events", List.of("aggregate_id=entity_id", "traceparent=none"), PayloadType.TEXT);
    assertThat(team.column(Column.TRACESTATE)).isNull();
    assertThat(team.renames()).containsExactly("aggregate_id=entity_id", "traceparent=none");
    assertThat(OutboxTable.of("events", List.of(), PayloadType.JSONB).column(Column.TRACESTATE))
        .isNull();
    assertThat(OutboxTable.of("outbox", List.of(), PayloadType.TEXT).column(Column.TRACESTATE))
        .isNull();
    assertThat(
            OutboxTable.of("outbox", List.of("traceparent=trace"), PayloadType.JSONB)
                .column(Column.TRACESTATE))
        .isNull();
    // named, it is read from that column
    OutboxTable named =
        OutboxTable.of("events", List.of("tracestate=trace_state"), PayloadType.JSONB);
    assertThat(named.column(Column.TRACESTATE)).isEqualTo("trace_state");
    assertThat(named.renames()).containsExactly("tracestate=trace_state");
    OutboxTable sameName =
        OutboxTable.of("events", List.of("tracestate=tracestate"), PayloadType.JSONB);
    assertThat(sameName.renames()).containsExactly("tracestate=tracestate");
    // and Ordinal's own without it
    OutboxTable without = OutboxTable.of("outbox", List.of("tracestate=none"), PayloadType.JSONB);
    assertThat(without.column(Column.TRACESTATE)).isNull();
    assertThat(without.isDefault()).isFalse();
    assertThat(without.renames()).containsExactly("tracestate=none");
    // each round-trips through its renames
    for (OutboxTable t : List.of(OutboxTable.DEFAULT, team, named, sameName, without)) {
      assertThat(OutboxTable.of(t.table(), t.renames(), t.payloadType())).isEqualTo(t);
    }
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

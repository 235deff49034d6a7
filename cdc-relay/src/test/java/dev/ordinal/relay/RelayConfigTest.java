package dev.ordinal.relay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ordinal.messaging.ConfigurationException;
import dev.ordinal.messaging.db.DatabaseSettings;
import dev.ordinal.relay.internal.DebeziumProperties;
import io.debezium.config.Configuration;
import io.debezium.connector.postgresql.PostgresConnectorConfig;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Properties;
import org.junit.jupiter.api.Test;

class RelayConfigTest {
  static final DatabaseSettings DB =
      new DatabaseSettings("jdbc:postgresql://db:5433/app", "relay", "s3cret");

  @Test
  void theUrlsTlsParametersReachDebeziumAndItsSecretsOnlyAsPropertiesItMasks() {
    String tls = "sslmode=verify-full&sslrootcert=/etc/ordinal/root.crt&sslkey=/etc/ordinal/k.pk8";
    DatabaseSettings db =
        new DatabaseSettings(
            "jdbc:postgresql://db:5433/app?" + tls + "&sslpassword=keypw", "relay", "s3cret");
    Properties p = DebeziumProperties.of(RelayConfig.of(db, "kafka:9092", "orders", "ordinal"));
    assertThat(p.getProperty("database.ordinal.url"))
        .isEqualTo("jdbc:postgresql://db:5433/app?" + tls);
    assertThat(p.getProperty("database.sslpassword")).isEqualTo("keypw");
    assertThat(p.getProperty("database.password")).isEqualTo("s3cret");
    // what Debezium prints of its configuration
    Configuration shown = Configuration.from(p).withMaskedPasswords();
    assertThat(shown.getString("database.sslpassword")).isNotEqualTo("keypw");
    assertThat(shown.getString("database.password")).isNotEqualTo("s3cret");
    assertThat(shown.getString("database.ordinal.url")).doesNotContain("keypw");
  }

  @Test
  void defaultsAndDebeziumPropertiesFollowTheOutboxConvention() {
    RelayConfig c = RelayConfig.of(DB, "kafka:9092", "orders", "ordinal");
    assertThat(c.slotName()).isEqualTo("ordinal_orders");
    assertThat(c.publicationName()).isEqualTo("ordinal_orders");
    assertThat(c.offsetStore()).isEqualTo(RelayConfig.OffsetStore.POSTGRES);
    assertThat(c.offsetFlushInterval()).isEqualTo(RelayConfig.DEFAULT_OFFSET_FLUSH_INTERVAL);

    Properties p = DebeziumProperties.of(c);
    assertThat(p.getProperty("database.hostname")).isEqualTo("db");
    assertThat(p.getProperty("database.port")).isEqualTo("5433");
    assertThat(p.getProperty("database.dbname")).isEqualTo("app");
    assertThat(p.getProperty("table.include.list")).isEqualTo("orders.outbox");
    assertThat(p.getProperty("snapshot.mode")).isEqualTo("no_data");
    assertThat(p.getProperty("transforms.outbox.route.topic.replacement"))
        .isEqualTo("ordinal.${routedByValue}");
    assertThat(p.getProperty("offset.flush.interval.ms")).isEqualTo("1000");
    assertThat(p.getProperty("offset.storage"))
        .isEqualTo("dev.ordinal.relay.internal.MonotonicOffsetStore");
    assertThat(p.getProperty("offset.storage.jdbc.table.name")).isEqualTo("ordinal_orders_offsets");
    assertThat(p.getProperty("offset.storage.jdbc.connection.url"))
        .isEqualTo("jdbc:postgresql://db:5433/app?currentSchema=orders");
    assertThat(p.getProperty("heartbeat.interval.ms")).isEqualTo("5000");
    assertThat(p.getProperty("publication.autocreate.mode")).isEqualTo("filtered");
    assertThat(p.getProperty("slot.drop.on.stop")).isEqualTo("false");
  }

  @Test
  void debeziumReadsTheSettingsTheRelayReliesOnAsMeant() {
    // read back through Debezium's own configuration class: a property under a name Debezium
    // does not read (its log-position check is an internal. one) would be silently ignored
    PostgresConnectorConfig pg =
        new PostgresConnectorConfig(
            Configuration.from(
                DebeziumProperties.of(RelayConfig.of(DB, "kafka:9092", "orders", "ordinal"))));
    assertThat(pg.isLogPositionCheckEnabled())
        .as("SlotPosition checks the slot against the stored position, not Debezium")
        .isFalse();
    assertThat(pg.maxRetries()).isEqualTo(20);
    assertThat(pg.retryDelay()).isEqualTo(Duration.ofMillis(500));
    assertThat(pg.slotName()).isEqualTo("ordinal_orders");
  }

  @Test
  void leastPrivilegeAndFileOffsetsChangeOnlyWhatTheySay() {
    RelayConfig c =
        RelayConfig.builder(DB, "kafka:9092", "orders", "ordinal")
            .createPublication(false)
            .offsetFile(Path.of("/var/lib/relay/offsets.dat"))
            .heartbeatInterval(Duration.ZERO)
            .build();
    Properties p = DebeziumProperties.of(c);
    assertThat(p.getProperty("publication.autocreate.mode")).isEqualTo("disabled");
    assertThat(p.getProperty("offset.storage"))
        .isEqualTo("org.apache.kafka.connect.storage.FileOffsetBackingStore");
    assertThat(p.getProperty("offset.storage.file.filename"))
        .isEqualTo("/var/lib/relay/offsets.dat");
    assertThat(p.getProperty("heartbeat.interval.ms")).isNull();
  }

  @Test
  void toStringHidesThePassword() {
    assertThat(RelayConfig.of(DB, "kafka:9092", "orders", "ordinal").toString())
        .doesNotContain("s3cret");
  }

  @Test
  void theSetupSqlGrantsOnlyWhatTheRelayNeeds() {
    String sql =
        RelaySetup.sql(
            List.of(
                RelayConfig.builder(DB, "kafka:9092", "orders", "ordinal")
                    .slot("billing_outbox", "billing_pub", false)
                    .build()),
            "relay",
            "pw'quoted");
    assertThat(sql)
        .contains("create role \"relay\" login replication password 'pw''quoted'")
        .contains("grant usage on schema \"orders\" to \"relay\"")
        .contains("grant select on table \"orders\".\"outbox\" to \"relay\"")
        .contains("create publication \"billing_pub\" for table \"orders\".\"outbox\"")
        .contains("\"orders\".\"billing_outbox_offsets\"")
        .doesNotContain("grant all");
    // the statements grant no superuser (the comments say who runs them)
    assertThat(sql.lines().filter(l -> !l.startsWith("--")))
        .noneMatch(l -> l.contains("superuser"));
  }

  @Test
  void theSetupSqlMakesTheRoleOnceAsASuperuserThenEachOutboxsPartAsItsOwner() {
    String sql =
        RelaySetup.sql(
            List.of(
                RelayConfig.builder(DB, "kafka:9092", "orders", "ordinal").build(),
                RelayConfig.builder(DB, "kafka:9092", "billing", "ordinal").build()),
            "relay",
            "pw");
    assertThat(sql.lines().filter(l -> l.startsWith("create role"))).hasSize(1);
    assertThat(sql.lines().filter(l -> l.startsWith("--")))
        .containsExactly(
            "-- as a superuser (from PostgreSQL 16 also a role with CREATEROLE that has"
                + " REPLICATION itself):",
            "-- as the owner of orders.outbox, who needs CREATE on the database for the"
                + " publication:",
            "-- as the owner of billing.outbox, who needs CREATE on the database for the"
                + " publication:");
    assertThat(sql.indexOf("create role")).isLessThan(sql.indexOf("grant usage on schema"));
  }

  @Test
  void badNamesAreRefusedWithTheSettingNamed() {
    assertThatThrownBy(
            () ->
                RelayConfig.builder(DB, "kafka:9092", "orders", "ordinal")
                    .slot("Bad-Slot", "pub", false)
                    .build())
        .isInstanceOf(ConfigurationException.class)
        .hasMessage("--slot must be 1 to 50 lower-case letters, digits or '_', not Bad-Slot");
    assertThatThrownBy(() -> RelayConfig.of(DB, " ", "orders", "ordinal"))
        .hasMessageContaining("ORDINAL_KAFKA_BOOTSTRAP");
    assertThatThrownBy(
            () -> RelayConfig.builder(DB, "k:1", "orders", "ordinal").offsetFile(null).build())
        .hasMessageContaining("offsetFile");
  }

  @Test
  void aLeaderLeaseShorterThanFourChecksIsRefusedWithTheSettingsNamed() {
    RelayConfig c = RelayConfig.of(DB, "kafka:9092", "orders", "ordinal");
    assertThat(c.leaderLease()).isEqualTo(Duration.ofSeconds(10));
    assertThatThrownBy(
            () ->
                RelayConfig.builder(DB, "kafka:9092", "orders", "ordinal")
                    .leaderRetryInterval(Duration.ofSeconds(1))
                    .leaderLease(Duration.ofSeconds(3))
                    .build())
        .isInstanceOf(ConfigurationException.class)
        .hasMessage(
            "--leader-lease must be at least 2 s and 4 times the leader check interval (PT1S), or a"
                + " live leader would lose it between two checks, not PT3S");
  }
}

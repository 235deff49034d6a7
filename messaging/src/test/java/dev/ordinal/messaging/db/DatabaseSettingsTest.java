package dev.ordinal.messaging.db;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ordinal.messaging.ConfigurationException;
import org.junit.jupiter.api.Test;

class DatabaseSettingsTest {

  @Test
  void readsHostPortAndDatabaseFromTheUrl() {
    DatabaseSettings db = new DatabaseSettings("jdbc:postgresql://db.local:6543/app", "u", "p");
    assertThat(db.host()).isEqualTo("db.local");
    assertThat(db.port()).isEqualTo(6543);
    assertThat(db.database()).isEqualTo("app");
  }

  @Test
  void withSchemaSetsOrReplacesTheCurrentSchema() {
    DatabaseSettings db =
        new DatabaseSettings("jdbc:postgresql://h:5432/app?ssl=false", "u", "p").withSchema("a");
    assertThat(db.jdbcUrl()).isEqualTo("jdbc:postgresql://h:5432/app?ssl=false&currentSchema=a");
    assertThat(db.withSchema("b").jdbcUrl())
        .isEqualTo("jdbc:postgresql://h:5432/app?ssl=false&currentSchema=b");
  }

  @Test
  void neverPrintsThePassword() {
    DatabaseSettings db =
        new DatabaseSettings("jdbc:postgresql://h/app?password=inurl", "u", "s3cret");
    assertThat(db.toString()).doesNotContain("s3cret").doesNotContain("inurl");
    assertThat(db.redactedUrl()).isEqualTo("jdbc:postgresql://h/app?password=***");
  }

  @Test
  void aNonPostgresUrlNamesTheSetting() {
    assertThatThrownBy(() -> new DatabaseSettings("jdbc:mysql://h/app", "u", "p"))
        .isInstanceOf(ConfigurationException.class)
        .hasMessageStartingWith("ORDINAL_DB_URL is not a PostgreSQL JDBC URL");
  }

  @Test
  void aMultiHostUrlIsBoundToThePrimaryAndOneHostIsLeftAsItIs() {
    DatabaseSettings two =
        new DatabaseSettings("jdbc:postgresql://a:5432,b:5433/app?sslmode=verify-full", "u", "p");
    assertThat(two.hosts()).containsExactly("a:5432", "b:5433");
    assertThat(two.forPrimary().jdbcUrl())
        .isEqualTo(
            "jdbc:postgresql://a:5432,b:5433/app?sslmode=verify-full"
                + "&targetServerType=primary&hostRecheckSeconds=2");
    DatabaseSettings set =
        new DatabaseSettings(
            "jdbc:postgresql://a,b/app?targetServerType=primary&hostRecheckSeconds=5", "u", "p");
    assertThat(set.forPrimary()).isEqualTo(set);
    DatabaseSettings one = new DatabaseSettings("jdbc:postgresql://a:5432/app", "u", "p");
    assertThat(one.forPrimary()).isEqualTo(one);
  }

  @Test
  void aUrlAskingForAStandbyIsRefusedForAClientThatWrites() {
    assertThatThrownBy(
            () ->
                new DatabaseSettings(
                        "jdbc:postgresql://a,b/app?targetServerType=preferSecondary", "u", "p")
                    .forPrimary())
        .isInstanceOf(ConfigurationException.class)
        .hasMessage(
            "ORDINAL_DB_URL sets targetServerType=preferSecondary, but this service writes and"
                + " must reach the primary: use targetServerType=primary.");
  }

  @Test
  void aPasswordInTheUrlIsTakenOutOfItAndUsedWhenNoneIsSet() {
    DatabaseSettings db =
        new DatabaseSettings("jdbc:postgresql://h/app?password=inurl&ssl=true", "u", null);
    assertThat(db.urlWithoutPassword()).isEqualTo("jdbc:postgresql://h/app?ssl=true");
    assertThat(db.effectivePassword()).isEqualTo("inurl");
    assertThat(new DatabaseSettings("jdbc:postgresql://h/app", "u", "s").effectivePassword())
        .isEqualTo("s");
  }

  @Test
  void theTlsParametersStayInEveryUrlAndAnSslPasswordIsNeverPrinted() {
    String tls = "sslmode=verify-full&sslrootcert=/etc/ordinal/root.crt&sslpassword=keypw";
    DatabaseSettings db =
        new DatabaseSettings("jdbc:postgresql://h1:5432,h2:5432/app?" + tls, "u", "s3cret");
    assertThat(db.redactedUrl())
        .isEqualTo(
            "jdbc:postgresql://h1:5432,h2:5432/app?sslmode=verify-full"
                + "&sslrootcert=/etc/ordinal/root.crt&sslpassword=***");
    assertThat(db.toString()).doesNotContain("keypw").doesNotContain("s3cret");
    // the driver needs them all, sslpassword included: only the login's password is taken out
    assertThat(db.urlWithoutPassword()).isEqualTo(db.jdbcUrl());
    assertThat(db.withSchema("a").jdbcUrl()).contains(tls).endsWith("&currentSchema=a");
    assertThat(db.forPrimary().jdbcUrl()).contains(tls).contains("targetServerType=primary");
    // for a client that logs its URL: both secrets out, to be passed as properties
    assertThat(db.urlWithoutPasswords())
        .isEqualTo(
            "jdbc:postgresql://h1:5432,h2:5432/app?sslmode=verify-full"
                + "&sslrootcert=/etc/ordinal/root.crt");
    assertThat(db.sslPassword()).isEqualTo("keypw");
    assertThat(new DatabaseSettings("jdbc:postgresql://h/app", "u", "").sslPassword()).isNull();
    assertThatThrownBy(() -> new DatabaseSettings("jdbc:mysql://h/app?sslpassword=keypw", "u", ""))
        .hasMessageContaining("sslpassword=***")
        .hasMessageNotContaining("keypw");
  }
}

package dev.ordinal.messaging.db;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.ordinal.testkit.OrdinalStackExtension;
import dev.ordinal.testkit.TestNamespace;
import java.time.Duration;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A service's sessions have a statement timeout and a lock timeout; other pools do not; migrations
 * run without the statement timeout.
 */
@ExtendWith(OrdinalStackExtension.class)
class ServicePoolIT {

  @Test
  void everySessionOfAServicePoolHasStatementAndLockTimeouts(TestNamespace ns) {
    DatabaseSettings db =
        new DatabaseSettings(ns.stack().jdbcUrl(), ns.stack().dbUser(), ns.stack().dbPassword());
    try (HikariDataSource service = db.servicePool("service-it", 2, Duration.ofSeconds(5));
        HikariDataSource plain = db.pool("plain-it", 1, Duration.ofSeconds(5))) {
      DSLContext s = DSL.using(service, SQLDialect.POSTGRES);
      assertThat(s.fetchValue("show statement_timeout")).isEqualTo("30s");
      assertThat(s.fetchValue("show lock_timeout")).isEqualTo("10s");
      DSLContext p = DSL.using(plain, SQLDialect.POSTGRES);
      assertThat(p.fetchValue("show statement_timeout")).isEqualTo("0");
      assertThat(p.fetchValue("show lock_timeout")).isEqualTo("0");
    }
  }

  /**
   * A migration longer than the pool's statement timeout runs to its end (it was cancelled, and the
   * service could not start), and the connection it used has its timeout back afterwards.
   */
  @Test
  void aMigrationOutlastingThePoolsStatementTimeoutCompletesAndTheTimeoutIsBackAfter(
      TestNamespace ns) {
    String url = ns.stack().jdbcUrl();
    DatabaseSettings db = // every session with a statement timeout of 200 ms
        new DatabaseSettings(
            url + (url.contains("?") ? "&" : "?") + "options=-c%20statement_timeout=200",
            ns.stack().dbUser(),
            ns.stack().dbPassword());
    try (HikariDataSource pool = db.pool("slow-migration-it", 2, Duration.ofSeconds(5))) {
      assertThat(DSL.using(pool, SQLDialect.POSTGRES).fetchValue("show statement_timeout"))
          .isEqualTo("200ms");
      Migrations.apply(pool, ns.schema("slow"), "classpath:db/test/slow", "flyway_history_slow");
      DSLContext s = DSL.using(pool, SQLDialect.POSTGRES);
      assertThat(
              s.fetchExists(
                  DSL.table(DSL.name("information_schema", "tables")),
                  DSL.field(DSL.name("table_name")).eq("slow_migration_done")))
          .isTrue();
      assertThat(s.fetchValue("show statement_timeout")).isEqualTo("200ms");
    }
  }
}

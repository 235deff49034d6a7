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

/** A service's sessions have a statement timeout and a lock timeout; other pools do not. */
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
}

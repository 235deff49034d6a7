package dev.ordinal.cli.bench;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ordinal.infra.junit.OrdinalStackExtension;
import dev.ordinal.infra.junit.TestNamespace;
import dev.ordinal.messaging.db.DatabaseSettings;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The bench reads the WAL sync counters of the real PostgreSQL, timed as the stack starts it. */
@ExtendWith(OrdinalStackExtension.class)
class WalSyncsIT {
  @Test
  void theStacksPostgresTimesItsWalSyncsAndTheCountersRead(TestNamespace ns) {
    DatabaseSettings db =
        new DatabaseSettings(ns.stack().jdbcUrl(), ns.stack().dbUser(), ns.stack().dbPassword());
    WalSyncs w = WalSyncs.read(db).orElseThrow();
    assertThat(w.timed()).as("track_wal_io_timing").isTrue();
    assertThat(w.syncs()).isNotNegative();
    assertThat(WalSyncs.read(new DatabaseSettings(ns.stack().jdbcUrl(), "no_such_role", "x")))
        .as("a server it cannot read")
        .isEmpty();
  }
}

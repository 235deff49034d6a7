package dev.ordinal.lab.bench;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ordinal.messaging.db.DatabaseSettings;
import dev.ordinal.testkit.OrdinalStackExtension;
import dev.ordinal.testkit.TestNamespace;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The bench reads the WAL sync counters of the real PostgreSQL, timed as the stack starts it. */
@ExtendWith(OrdinalStackExtension.class)
class WalSyncsIT {
  @Test
  void theStacksPostgresTimesItsWalSyncsAndTheCountersRead(TestNamespace ns) {
    WalSyncs w = WalSyncs.read(BenchRun.database(ns.stack())).orElseThrow();
    assertThat(w.timed()).as("track_wal_io_timing").isTrue();
    assertThat(w.syncs()).isNotNegative();
    assertThat(WalSyncs.read(new DatabaseSettings(ns.stack().jdbcUrl(), "no_such_role", "x")))
        .as("a server it cannot read")
        .isEmpty();
  }
}

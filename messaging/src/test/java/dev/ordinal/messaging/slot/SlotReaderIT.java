package dev.ordinal.messaging.slot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ordinal.messaging.db.DatabaseSettings;
import dev.ordinal.testkit.OrdinalStackExtension;
import dev.ordinal.testkit.TestNamespace;
import java.sql.Connection;
import java.sql.Statement;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(OrdinalStackExtension.class)
class SlotReaderIT {
  @Test
  void aSlotNobodyStreamsFromHoldsBackTheWalWrittenSinceIt(TestNamespace ns) throws Exception {
    String slot = ns.name() + "_slot";
    DatabaseSettings db =
        new DatabaseSettings(ns.stack().jdbcUrl(), ns.stack().dbUser(), ns.stack().dbPassword());
    try (Connection c = ns.dataSource().getConnection();
        Statement st = c.createStatement()) {
      st.execute("SELECT pg_create_logical_replication_slot('" + slot + "', 'pgoutput')");
      try {
        SlotReader reader = new SlotReader(db, slot);
        List<SlotReading> before = reader.read();
        assertThat(before).hasSize(1);
        assertThat(before.get(0).slot()).isEqualTo(slot);
        assertThat(before.get(0).plugin()).isEqualTo("pgoutput");
        assertThat(before.get(0).active()).isFalse();
        assertThat(before.get(0).walStatus()).isEqualTo("reserved");

        st.execute(
            "CREATE TABLE wal_filler AS SELECT g, repeat('x', 200) AS v"
                + " FROM generate_series(1, 2000) g");
        SlotReading after = reader.read().get(0);
        System.out.printf(
            "slot %s after 2000 rows: restart lag %d bytes, confirmed lag %d bytes, wal_status %s,"
                + " safe_wal_size %s%n",
            slot,
            after.restartLagBytes(),
            after.confirmedLagBytes(),
            after.walStatus(),
            after.safeWalBytes());
        assertThat(after.confirmedLagBytes())
            .isGreaterThan(before.get(0).confirmedLagBytes() + 400_000);
        assertThat(after.restartLagBytes())
            .as("the server keeps WAL from restart_lsn, at or before confirmed_flush_lsn")
            .isGreaterThanOrEqualTo(after.confirmedLagBytes());
        assertThat(new SlotReader(db, null).read()).extracting(SlotReading::slot).contains(slot);
      } finally {
        st.execute("SELECT pg_drop_replication_slot('" + slot + "')");
      }
    }
  }
}

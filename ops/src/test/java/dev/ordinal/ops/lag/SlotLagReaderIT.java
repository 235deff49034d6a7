package dev.ordinal.ops.lag;

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
class SlotLagReaderIT {
  @Test
  void aSlotNobodyStreamsFromHoldsBackTheWalWrittenSinceIt(TestNamespace ns) throws Exception {
    String slot = ns.name() + "_slot";
    DatabaseSettings db =
        new DatabaseSettings(ns.stack().jdbcUrl(), ns.stack().dbUser(), ns.stack().dbPassword());
    try (Connection c = ns.dataSource().getConnection();
        Statement st = c.createStatement()) {
      st.execute("SELECT pg_create_logical_replication_slot('" + slot + "', 'pgoutput')");
      try {
        SlotLagReader reader = new SlotLagReader(db, slot);
        List<SlotLag> before = reader.read();
        assertThat(before).hasSize(1);
        assertThat(before.get(0).slot()).isEqualTo(slot);
        assertThat(before.get(0).plugin()).isEqualTo("pgoutput");
        assertThat(before.get(0).active()).isFalse();

        st.execute(
            "CREATE TABLE wal_filler AS SELECT g, repeat('x', 200) AS v"
                + " FROM generate_series(1, 2000) g");
        long after = reader.read().get(0).lagBytes();
        assertThat(after).isGreaterThan(before.get(0).lagBytes() + 400_000);
        assertThat(new SlotLagReader(db, null).read()).extracting(SlotLag::slot).contains(slot);
      } finally {
        st.execute("SELECT pg_drop_replication_slot('" + slot + "')");
      }
    }
  }
}

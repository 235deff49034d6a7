package dev.ordinal.lab.bench;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.ordinal.messaging.db.DatabaseSettings;
import dev.ordinal.testkit.OrdinalStackExtension;
import dev.ordinal.testkit.TestNamespace;
import java.util.Map;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.Table;
import org.jooq.impl.DSL;
import org.jooq.impl.SQLDataType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The WAL between two positions of the real PostgreSQL, by the relation each record changes. */
@ExtendWith(OrdinalStackExtension.class)
class WalByRelationIT {
  @Test
  void insertsShowUnderTheirTableAndItsKeyAndCommitsUnderTransaction(TestNamespace ns) {
    String schema = ns.schema("wal");
    DatabaseSettings db = BenchRun.database(ns.stack()).withSchema(schema);
    try (HikariDataSource pool = db.pool("wal-by-relation", 1)) {
      DSLContext dsl = DSL.using(pool, SQLDialect.POSTGRES);
      dsl.createSchemaIfNotExists(schema).execute();
      Table<?> t = DSL.table(DSL.name(schema, "wal_probe"));
      dsl.createTable(t)
          .column("id", SQLDataType.BIGINT.notNull())
          .column("note", SQLDataType.VARCHAR(64))
          .constraint(DSL.constraint("wal_probe_pkey").primaryKey("id"))
          .execute();

      String from = WalByRelation.position(dsl);
      for (long i = 0; i < 50; i++) {
        dsl.insertInto(t)
            .columns(DSL.field("id", Long.class), DSL.field("note", String.class))
            .values(i, "row " + i)
            .execute();
      }
      String to = WalByRelation.position(dsl);
      Map<String, Long> bytes = WalByRelation.between(dsl, from, to).orElseThrow();

      assertThat(bytes).containsKeys("wal_probe", "wal_probe_pkey", "(Transaction)");
      // 50 heap inserts of at least a tuple header each, 50 commits of at least a record header
      assertThat(bytes.get("wal_probe")).isGreaterThan(50 * 24);
      assertThat(bytes.get("(Transaction)")).isGreaterThanOrEqualTo(50 * 24);
      assertThat(bytes.values().stream().mapToLong(Long::longValue).sum())
          .as("never more than the WAL between the positions")
          .isLessThanOrEqualTo(
              dsl.fetchValue(
                  DSL.field(
                      "pg_wal_lsn_diff({0}::pg_lsn, {1}::pg_lsn)::bigint",
                      Long.class, DSL.val(to), DSL.val(from))));
    }
  }
}

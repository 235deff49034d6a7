package dev.ordinal.billing;

import static dev.ordinal.billing.db.Tables.INVOICE;
import static dev.ordinal.billing.db.Tables.INVOICE_SERIES;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariDataSource;
import dev.ordinal.messaging.db.Migrations;
import dev.ordinal.testkit.OrdinalStackExtension;
import dev.ordinal.testkit.TestNamespace;
import java.math.BigDecimal;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;
import org.jooq.Condition;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.Record;
import org.jooq.SQLDialect;
import org.jooq.Table;
import org.jooq.exception.DataAccessException;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * V10 on a database that block reservation (V9) was used on: the numbers a block reserved and the
 * issuer had not copied onto their invoices yet are copied before the block's columns go, so no
 * number is lost; then the unique (series, number) key is a constraint again and an invoice without
 * a number is a draft or cancelled again.
 */
@ExtendWith(OrdinalStackExtension.class)
class DropNumberBlocksMigrationIT {
  // V9's block columns and table, gone from the generated classes
  private static final Field<Long> BLOCK_ID = DSL.field(DSL.name("block_id"), Long.class);
  private static final Field<Integer> BLOCK_OFFSET =
      DSL.field(DSL.name("block_offset"), Integer.class);
  private static final Table<Record> NUMBER_BLOCK = DSL.table(DSL.name("number_block"));

  @Test
  void aBlocksNumbersNotCopiedYetAreKeptAndThePlainUniqueKeyIsBack(TestNamespace ns) {
    String schema = ns.schema("blocks");
    try (HikariDataSource pool = BillingFixture.pool(ns, schema, "billing-blocks", 2)) {
      // billing's tables as a database that ran V1..V9 has them
      Migrations.applyUpTo(pool, schema, "classpath:db/billing", "flyway_history_billing", "9");
      DSLContext dsl = DSL.using(pool, SQLDialect.POSTGRES);

      // OLD: 1 issued, 2 reserved alone, 3..5 a block (3 already copied by the issuer's claim,
      // 4 and 5 held by the block only), 6 in error; a draft and a cancelled draft without one
      dsl.insertInto(INVOICE_SERIES)
          .set(INVOICE_SERIES.SERIES, "OLD")
          .set(INVOICE_SERIES.NEXT_NO, 7L)
          .execute();
      dsl.insertInto(NUMBER_BLOCK)
          .set(DSL.field(DSL.name("id"), Long.class), 1L)
          .set(DSL.field(DSL.name("series"), String.class), "OLD")
          .set(DSL.field(DSL.name("first_no"), Long.class), 3L)
          .set(DSL.field(DSL.name("size"), Integer.class), 3)
          .execute();
      Map<String, Long> expected = new LinkedHashMap<>();
      Map<String, Long> ids = new LinkedHashMap<>();
      ids.put("issued", invoice(dsl, "ISSUED", 1L, null, null));
      expected.put("issued", 1L);
      ids.put("reserved", invoice(dsl, "SENDING", 2L, null, null));
      expected.put("reserved", 2L);
      ids.put("block 1, copied", invoice(dsl, "SENDING", 3L, 1L, 1));
      expected.put("block 1, copied", 3L);
      ids.put("block 2", invoice(dsl, "SENDING", null, 1L, 2));
      expected.put("block 2", 4L);
      ids.put("block 3", invoice(dsl, "SENDING", null, 1L, 3));
      expected.put("block 3", 5L);
      ids.put("error", invoice(dsl, "ERROR", 6L, null, null));
      expected.put("error", 6L);
      ids.put("draft", invoice(dsl, "DRAFT", null, null, null));
      expected.put("draft", null);
      ids.put("cancelled", invoice(dsl, "CANCELLED", null, null, null));
      expected.put("cancelled", null);

      BillingService.migrate(pool, schema);

      Map<String, Long> numbers = new LinkedHashMap<>();
      ids.forEach(
          (what, id) ->
              numbers.put(
                  what,
                  dsl.select(INVOICE.NUMBER)
                      .from(INVOICE)
                      .where(INVOICE.ID.eq(id))
                      .fetchOne(INVOICE.NUMBER)));
      assertThat(numbers).as("every number on invoice.number").isEqualTo(expected);
      GapAudit.SeriesReport audit = new GapAudit(dsl).run("OLD").get(0);
      assertThat(audit.highest()).isEqualTo(6);
      assertThat(audit.clean()).isTrue();

      Condition ofInvoice =
          column("table_schema").eq(schema).and(column("table_name").eq("invoice"));
      assertThat(
              catalog(
                  dsl,
                  "columns",
                  ofInvoice.and(column("column_name").in("block_id", "block_offset"))))
          .as("the block columns are gone")
          .isZero();
      assertThat(
              catalog(
                  dsl,
                  "tables",
                  column("table_schema").eq(schema).and(column("table_name").eq("number_block"))))
          .as("number_block is gone")
          .isZero();
      assertThat(
              catalog(
                  dsl,
                  "sequences",
                  column("sequence_schema")
                      .eq(schema)
                      .and(column("sequence_name").eq("number_block_seq"))))
          .as("number_block_seq is gone")
          .isZero();
      assertThat(
              catalog(
                  dsl,
                  "table_constraints",
                  ofInvoice
                      .and(column("constraint_name").eq("invoice_series_number_key"))
                      .and(column("constraint_type").eq("UNIQUE"))))
          .as("invoice_series_number_key is a unique constraint again, not a partial index")
          .isEqualTo(1);

      assertThatThrownBy(() -> invoice(dsl, "ISSUED", 4L, null, null))
          .as("a number of the block taken a second time")
          .isInstanceOf(DataAccessException.class)
          .satisfies(e -> assertThat(((DataAccessException) e).sqlState()).isEqualTo("23505"))
          .hasMessageContaining("invoice_series_number_key");
      assertThatThrownBy(
              () ->
                  dsl.update(INVOICE)
                      .set(INVOICE.STATUS, InvoiceStatus.SENDING.name())
                      .where(INVOICE.ID.eq(ids.get("draft")))
                      .execute())
          .as("SENDING without a number, as V9 allowed for a block's draft")
          .isInstanceOf(DataAccessException.class)
          .satisfies(e -> assertThat(((DataAccessException) e).sqlState()).isEqualTo("23514"))
          .hasMessageContaining("invoice_number_when_reserved");
    }
  }

  /** The rows of {@code information_schema.<view>} where {@code condition} holds. */
  private static int catalog(DSLContext dsl, String view, Condition condition) {
    return dsl.fetchCount(DSL.table(DSL.name("information_schema", view)), condition);
  }

  /** A text column of an {@code information_schema} view. */
  private static Field<String> column(String name) {
    return DSL.field(DSL.name(name), String.class);
  }

  /** An invoice of series OLD as V9 could hold it; returns its row id. */
  private static long invoice(
      DSLContext dsl, String status, Long number, Long blockId, Integer blockOffset) {
    var insert =
        dsl.insertInto(INVOICE)
            .set(INVOICE.ORDER_ID, UUID.randomUUID())
            .set(INVOICE.CUSTOMER_ID, "c")
            .set(INVOICE.CURRENCY, "EUR")
            .set(INVOICE.TOTAL, new BigDecimal("10.00"))
            .set(INVOICE.SERIES, "OLD")
            .set(INVOICE.STATUS, status)
            .set(INVOICE.NUMBER, number)
            .set(INVOICE.SOURCE_MESSAGE_ID, "test-" + UUID.randomUUID());
    if (blockId != null) {
      insert = insert.set(BLOCK_ID, blockId).set(BLOCK_OFFSET, blockOffset);
    }
    return insert.returning(INVOICE.ID).fetchOne().getId();
  }
}

package dev.ordinal.lab.numbering;

import static org.jooq.impl.DSL.field;
import static org.jooq.impl.DSL.name;
import static org.jooq.impl.DSL.primaryKey;
import static org.jooq.impl.DSL.table;

import java.math.BigDecimal;
import java.time.OffsetDateTime;
import java.util.UUID;
import org.jooq.CreateTableElementListStep;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.Record;
import org.jooq.Table;
import org.jooq.impl.SQLDataType;

/**
 * The lab's own tables, created by the lab with jOOQ DDL (not a migration: the production schema
 * stays as it is). Deliberately without a unique constraint on numbers or orders: the point is to
 * see what the strategies do, not what a constraint would have caught.
 */
final class LabTables {
  static final Field<Long> ID = field(name("id"), SQLDataType.BIGINT);
  static final Field<UUID> ORDER_ID = field(name("order_id"), SQLDataType.UUID);
  static final Field<String> SERIES = field(name("series"), SQLDataType.VARCHAR(32));
  static final Field<BigDecimal> TOTAL = field(name("total"), SQLDataType.NUMERIC(14, 2));
  static final Field<Long> NUMBER = field(name("number"), SQLDataType.BIGINT);
  static final Field<String> STATUS = field(name("status"), SQLDataType.VARCHAR(16));
  static final Field<Long> NEXT_NO = field(name("next_no"), SQLDataType.BIGINT);
  static final Field<String> MESSAGE_ID = field(name("message_id"), SQLDataType.VARCHAR(128));
  static final Field<OffsetDateTime> CREATED_AT =
      field(name("created_at"), SQLDataType.TIMESTAMPWITHTIMEZONE);

  /** Invoice statuses of the lab tables. */
  static final String OPEN = "OPEN";

  static final String ISSUED = "ISSUED";
  static final String REJECTED = "REJECTED";
  static final String CANCELLED = "CANCELLED";

  /** The naive consumer's invoices: no unique constraint on the order. */
  static final Table<Record> NAIVE_INVOICE = table(name("lab_naive_invoice"));

  private LabTables() {}

  static Table<Record> invoices(String strategy) {
    return table(name("lab_" + strategy + "_invoice"));
  }

  static Table<Record> counter(String strategy) {
    return table(name("lab_" + strategy + "_series"));
  }

  /** Drops and creates a strategy's invoice table (no unique constraint on the number). */
  static void recreateInvoices(DSLContext dsl, Table<Record> t) {
    recreateOrderRows(dsl, t)
        .column(SERIES, SQLDataType.VARCHAR(32).nullable(false))
        .column(TOTAL, SQLDataType.NUMERIC(14, 2).nullable(false))
        .column(NUMBER, SQLDataType.BIGINT.nullable(true))
        .column(STATUS, SQLDataType.VARCHAR(16).nullable(false))
        .constraints(primaryKey(ID))
        .execute();
  }

  /** Drops and creates a counter table with one row: {@code series} starts at 1. */
  static void recreateCounter(DSLContext dsl, Table<Record> t, String series) {
    dsl.dropTableIfExists(t).execute();
    dsl.createTable(t)
        .column(SERIES, SQLDataType.VARCHAR(32).nullable(false))
        .column(NEXT_NO, SQLDataType.BIGINT.nullable(false))
        .constraints(primaryKey(SERIES))
        .execute();
    dsl.insertInto(t).set(SERIES, series).set(NEXT_NO, 1L).execute();
  }

  /** Drops and creates the naive consumer's invoice table: nothing stops two rows per order. */
  static void recreateNaive(DSLContext dsl) {
    recreateOrderRows(dsl, NAIVE_INVOICE)
        .column(MESSAGE_ID, SQLDataType.VARCHAR(128).nullable(false))
        .column(TOTAL, SQLDataType.NUMERIC(14, 2).nullable(false))
        .column(CREATED_AT, SQLDataType.TIMESTAMPWITHTIMEZONE.nullable(false))
        .constraints(primaryKey(ID))
        .execute();
  }

  /**
   * Drops {@code t} and starts its creation with the columns every invoice table here has: the
   * identity {@link #ID} and the {@link #ORDER_ID}.
   */
  private static CreateTableElementListStep recreateOrderRows(DSLContext dsl, Table<Record> t) {
    dsl.dropTableIfExists(t).execute();
    return dsl.createTable(t)
        .column(ID, SQLDataType.BIGINT.identity(true))
        .column(ORDER_ID, SQLDataType.UUID.nullable(false));
  }
}

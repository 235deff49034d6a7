package dev.ordinal.billing;

import static dev.ordinal.billing.db.Tables.INVOICE;

import com.zaxxer.hikari.HikariDataSource;
import dev.ordinal.infra.junit.TestNamespace;
import dev.ordinal.messaging.DatabaseSettings;
import java.math.BigDecimal;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;

/** Billing's schema in the test class's namespace, and a way to make draft invoices. */
final class BillingFixture implements AutoCloseable {
  final HikariDataSource pool;
  final DSLContext dsl;

  BillingFixture(TestNamespace ns, String part) {
    String schema = ns.schema(part);
    pool =
        new DatabaseSettings(ns.stack().jdbcUrl(), ns.stack().dbUser(), ns.stack().dbPassword())
            .withSchema(schema)
            .pool("billing-" + part, 20);
    BillingService.migrate(pool, schema);
    dsl = DSL.using(pool, SQLDialect.POSTGRES);
  }

  /** {@code n} drafts in {@code series}; returns their row ids in creation order. */
  List<Long> drafts(String series, int n) {
    List<Long> ids = new ArrayList<>();
    OffsetDateTime now = OffsetDateTime.now();
    for (int i = 0; i < n; i++) {
      ids.add(
          dsl.insertInto(INVOICE)
              .set(INVOICE.ORDER_ID, UUID.randomUUID())
              .set(INVOICE.CUSTOMER_ID, "c-" + i)
              .set(INVOICE.CURRENCY, "EUR")
              .set(INVOICE.TOTAL, new BigDecimal("10.00"))
              .set(INVOICE.SERIES, series)
              .set(INVOICE.STATUS, InvoiceStatus.DRAFT.name())
              .set(INVOICE.SOURCE_MESSAGE_ID, "test-" + UUID.randomUUID())
              .set(INVOICE.CREATED_AT, now.plusNanos(i * 1000L))
              .returning(INVOICE.ID)
              .fetchOne()
              .getId());
    }
    return ids;
  }

  @Override
  public void close() {
    pool.close();
  }
}

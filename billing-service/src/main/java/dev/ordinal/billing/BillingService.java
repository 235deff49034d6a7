package dev.ordinal.billing;

import dev.ordinal.messaging.db.Migrations;
import javax.sql.DataSource;

/**
 * Billing's names and its schema: the consumer name its messages are recorded under, the aggregate
 * types it reads and writes, its migrations. {@link BillingApp} puts billing together.
 */
public final class BillingService {
  /** The name billing's messages are recorded under in the inbox. */
  public static final String CONSUMER_NAME = "billing";

  /** The aggregate type of the interactive order events billing reads ({@code <prefix>.order}). */
  public static final String ORDER_AGGREGATE = "order";

  /** The aggregate type of the bulk order events ({@code <prefix>.order-bulk}). */
  public static final String ORDER_BULK_AGGREGATE = "order-bulk";

  /**
   * The aggregate type of billing's own events ({@code InvoiceIssued} on {@code <prefix>.invoice}).
   */
  public static final String INVOICE_AGGREGATE = "invoice";

  private BillingService() {}

  /** Creates or updates billing's tables (inbox, outbox, invoices, payments) in {@code schema}. */
  public static void migrate(DataSource dataSource, String schema) {
    Migrations.applyInbox(dataSource, schema);
    Migrations.applyOutbox(dataSource, schema);
    Migrations.apply(dataSource, schema, "classpath:db/billing", "flyway_history_billing");
  }
}

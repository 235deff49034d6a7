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

  private BillingService() {}

  /** Creates or updates billing's tables (inbox, outbox, invoices, payments) in {@code schema}. */
  public static void migrate(DataSource dataSource, String schema) {
    Migrations.applyInbox(dataSource, schema);
    Migrations.applyOutbox(dataSource, schema);
    Migrations.apply(dataSource, schema, "classpath:db/billing", "flyway_history_billing");
  }
}

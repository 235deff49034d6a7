package dev.ordinal.billing;

import dev.ordinal.contracts.AggregateType;
import dev.ordinal.messaging.db.Migrations;
import dev.ordinal.messaging.inbox.InboxConsumer;
import dev.ordinal.messaging.inbox.InboxConsumerConfig;
import dev.ordinal.messaging.kafka.Topics;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import javax.sql.DataSource;
import org.jooq.DSLContext;

/** Billing: consumes order events through the inbox and writes one invoice per order. */
public final class BillingService {
  /** The name billing's messages are recorded under in the inbox. */
  public static final String CONSUMER_NAME = "billing";

  /**
   * The aggregate type of billing's own events ({@code InvoiceIssued} on {@code <prefix>.invoice}):
   * the contract's {@link AggregateType#INVOICE}.
   *
   * @deprecated use {@code AggregateType.INVOICE.wireName()}
   */
  @Deprecated public static final String INVOICE_AGGREGATE = AggregateType.INVOICE.wireName();

  private BillingService() {}

  /** Creates or updates billing's tables (inbox, outbox, invoices, payments) in {@code schema}. */
  public static void migrate(DataSource dataSource, String schema) {
    Migrations.applyInbox(dataSource, schema);
    Migrations.applyOutbox(dataSource, schema);
    Migrations.apply(dataSource, schema, "classpath:db/billing", "flyway_history_billing");
  }

  /**
   * A started consumer of {@code config}'s topics that turns orders into invoices. The topics are
   * created first when missing, so the consumer sees them at once.
   */
  public static InboxConsumer start(
      InboxConsumerConfig config, DSLContext dsl, MeterRegistry registry, Clock clock) {
    for (String topic : config.topics()) {
      Topics.ensure(config.bootstrapServers(), topic, Topics.DEFAULT_PARTITIONS);
    }
    return new InboxConsumer(config, dsl, new InvoiceHandler(clock), registry, clock).start();
  }
}

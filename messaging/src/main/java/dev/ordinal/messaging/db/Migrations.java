package dev.ordinal.messaging.db;

import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.configuration.FluentConfiguration;

/**
 * Applies Flyway migrations to one schema. Each set of migrations keeps its own history table, so
 * the messaging tables and a service's own tables evolve independently in the same schema.
 */
public final class Migrations {
  /** The outbox table, for services that publish events. */
  public static final String OUTBOX = "classpath:db/messaging/outbox";

  /** The inbox table, for services that consume events. */
  public static final String INBOX = "classpath:db/messaging/inbox";

  private Migrations() {}

  /**
   * Migrates {@code schema} (created if missing) with the scripts at {@code location}.
   *
   * @param historyTable Flyway's history table for this set of scripts
   */
  public static void apply(
      DataSource dataSource, String schema, String location, String historyTable) {
    configure(dataSource, schema, location, historyTable).load().migrate();
  }

  /**
   * As {@link #apply}, but only up to version {@code target}: the schema as the release that
   * shipped that version left it, for a test of a later migration on the rows it held.
   */
  public static void applyUpTo(
      DataSource dataSource, String schema, String location, String historyTable, String target) {
    configure(dataSource, schema, location, historyTable).target(target).load().migrate();
  }

  private static FluentConfiguration configure(
      DataSource dataSource, String schema, String location, String historyTable) {
    return Flyway.configure()
        .dataSource(dataSource)
        .schemas(schema)
        .defaultSchema(schema)
        .createSchemas(true)
        // several migration sets share the schema: start each one's history below V1
        .baselineOnMigrate(true)
        .baselineVersion("0")
        .table(historyTable)
        .locations(location);
  }

  public static void applyOutbox(DataSource dataSource, String schema) {
    apply(dataSource, schema, OUTBOX, "flyway_history_outbox");
  }

  public static void applyInbox(DataSource dataSource, String schema) {
    apply(dataSource, schema, INBOX, "flyway_history_inbox");
  }
}

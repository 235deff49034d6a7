package dev.ordinal.messaging.db;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.configuration.FluentConfiguration;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;

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
        .dataSource(withoutStatementTimeout(dataSource))
        .schemas(schema)
        .defaultSchema(schema)
        .createSchemas(true)
        // several migration sets share the schema: start each one's history below V1
        .baselineOnMigrate(true)
        .baselineVersion("0")
        .table(historyTable)
        .locations(location);
  }

  /**
   * {@code pool} whose connections, while the migrations hold them, have no statement timeout: a
   * service's pool gives every session {@link DatabaseSettings#STATEMENT_TIMEOUT}, which a
   * migration of a large table (an index, a new column's default) outlasts, so it was cancelled and
   * the service could not start. The lock timeout stays, so that a migration waiting for a lock
   * fails rather than queueing every writer behind it. Each connection gets its own timeout back
   * when the migrations hand it back to the pool.
   */
  static DataSource withoutStatementTimeout(DataSource pool) {
    return (DataSource)
        Proxy.newProxyInstance(
            Migrations.class.getClassLoader(),
            new Class<?>[] {DataSource.class},
            (proxy, method, args) -> {
              Object result = invoke(pool, method, args);
              return result instanceof Connection c ? unbounded(c) : result;
            });
  }

  private static Connection unbounded(Connection c) throws SQLException {
    DSLContext session = DSL.using(c, SQLDialect.POSTGRES);
    String before =
        session.fetchValue(DSL.field("current_setting('statement_timeout')", String.class));
    setStatementTimeout(session, "0");
    return (Connection)
        Proxy.newProxyInstance(
            Migrations.class.getClassLoader(),
            new Class<?>[] {Connection.class},
            (proxy, method, args) -> {
              if (method.getName().equals("close") && !c.isClosed()) {
                setStatementTimeout(DSL.using(c, SQLDialect.POSTGRES), before);
              }
              return invoke(c, method, args);
            });
  }

  private static void setStatementTimeout(DSLContext session, String value) {
    session
        .select(DSL.field("set_config('statement_timeout', {0}, false)", DSL.val(value)))
        .fetch();
  }

  private static Object invoke(Object target, Method method, Object[] args) throws Throwable {
    try {
      return method.invoke(target, args);
    } catch (InvocationTargetException e) {
      throw e.getCause();
    }
  }

  public static void applyOutbox(DataSource dataSource, String schema) {
    apply(dataSource, schema, OUTBOX, "flyway_history_outbox");
  }

  public static void applyInbox(DataSource dataSource, String schema) {
    apply(dataSource, schema, INBOX, "flyway_history_inbox");
  }
}

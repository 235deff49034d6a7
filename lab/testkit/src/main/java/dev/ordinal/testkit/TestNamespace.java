package dev.ordinal.testkit;

import dev.ordinal.lab.devstack.Stack;
import dev.ordinal.lab.devstack.StackConfig;
import dev.ordinal.lab.devstack.StackException;
import java.sql.Connection;
import java.sql.SQLException;
import javax.sql.DataSource;
import org.jooq.impl.DSL;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * What one test class owns on the shared stack: a schema (created here), and names for topics and
 * consumer groups that start with {@link #name()}. Nothing is shared with other test classes.
 */
public final class TestNamespace {
  private final Stack stack;
  private final String name;

  private TestNamespace(Stack stack, String name) {
    this.stack = stack;
    this.name = name;
  }

  static TestNamespace create(Stack stack, String name) {
    TestNamespace ns = new TestNamespace(stack, name);
    try (Connection c = ns.adminDataSource().getConnection()) {
      DSL.using(c).createSchemaIfNotExists(name).execute();
    } catch (SQLException e) {
      throw new StackException("Cannot create test schema " + name + ": " + e.getMessage(), e);
    }
    return ns;
  }

  /**
   * The shared stack's servers as a product command reads them: {@code ORDINAL_DB_URL}, {@code
   * ORDINAL_DB_USER}, {@code ORDINAL_DB_PASSWORD} and {@code ORDINAL_KAFKA_BOOTSTRAP}.
   */
  public java.util.Map<String, String> serverEnvironment() {
    return java.util.Map.of(
        StackConfig.ENV_DB_URL, stack.jdbcUrl(),
        StackConfig.ENV_DB_USER, stack.dbUser(),
        StackConfig.ENV_DB_PASSWORD, stack.dbPassword(),
        StackConfig.ENV_KAFKA_BOOTSTRAP, stack.kafkaBootstrap());
  }

  public Stack stack() {
    return stack;
  }

  /** Unique, lower-case, a valid SQL identifier and topic name part. */
  public String name() {
    return name;
  }

  /** The schema this class's tables live in. */
  public String schema() {
    return name;
  }

  /** The prefix of every topic of this class: topics are {@code <prefix>.<aggregate>}. */
  public String topicPrefix() {
    return name;
  }

  /** Another schema of this class (for a second service), named {@code <name>_<part>}. */
  public String schema(String part) {
    return name + "_" + part;
  }

  public String topic(String aggregate) {
    return name + "." + aggregate;
  }

  public String group(String consumer) {
    return name + "-" + consumer;
  }

  /** JDBC URL whose search_path is this class's schema. */
  public String jdbcUrl() {
    String url = stack.jdbcUrl();
    return url + (url.contains("?") ? "&" : "?") + "currentSchema=" + name;
  }

  /** A data source on this class's schema (unpooled). */
  public DataSource dataSource() {
    return dataSource(jdbcUrl());
  }

  /**
   * Drops each of {@code slots} that no relay streams from: what a test's relays left behind, so
   * the shared PostgreSQL keeps no WAL for them.
   */
  public void dropInactiveSlots(java.util.Collection<String> slots) {
    DSL.using(adminDataSource(), org.jooq.SQLDialect.POSTGRES)
        .select(DSL.field("pg_drop_replication_slot(slot_name)"))
        .from(DSL.table("pg_replication_slots"))
        .where(DSL.field("slot_name", String.class).in(slots))
        .and(DSL.field("active", Boolean.class).isFalse())
        .fetch();
  }

  private DataSource adminDataSource() {
    return dataSource(stack.jdbcUrl());
  }

  private DataSource dataSource(String url) {
    PGSimpleDataSource ds = new PGSimpleDataSource();
    ds.setUrl(url);
    ds.setUser(stack.dbUser());
    ds.setPassword(stack.dbPassword());
    return ds;
  }
}

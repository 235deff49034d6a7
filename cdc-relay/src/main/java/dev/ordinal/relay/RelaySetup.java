package dev.ordinal.relay;

import java.util.List;
import org.jooq.DSLContext;
import org.jooq.Query;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;

/**
 * The least privilege the CDC relay needs, as SQL that the outbox table's owner runs once: a role
 * with only {@code LOGIN REPLICATION}, {@code USAGE} on the schema, {@code SELECT} on the outbox,
 * read/write on the relay's offsets table, and the publication made by the owner (so the relay does
 * not need to own the table). Identifiers are quoted and the password inlined as a literal by jOOQ.
 * {@code ./ordinal relay setup-sql} prints it.
 */
public final class RelaySetup {
  private RelaySetup() {}

  /** The statements, in order, for {@code role} and the relay described by {@code config}. */
  public static List<Query> statements(RelayConfig config, String role, String password) {
    var schema = DSL.name(config.outboxSchema());
    var outbox = DSL.name(config.outboxSchema(), "outbox");
    var offsets = DSL.name(config.outboxSchema(), config.offsetTable());
    var r = DSL.name(role);
    return List.of(
        DSL.query("create role {0} login replication password {1}", r, DSL.inline(password)),
        DSL.query("grant usage on schema {0} to {1}", schema, r),
        DSL.query("grant select on table {0} to {1}", outbox, r),
        DSL.query(
            "create publication {0} for table {1}", DSL.name(config.publicationName()), outbox),
        // the layout debezium-storage-jdbc expects for its offsets
        DSL.query(
            "create table if not exists {0} (id varchar(36) not null primary key,"
                + " offset_key varchar(1255), offset_val varchar(1255),"
                + " record_insert_ts timestamp not null, record_insert_seq integer not null)",
            offsets),
        DSL.query("grant select, insert, update, delete on table {0} to {1}", offsets, r));
  }

  /** The statements as text, password included: for an operator to review and run. */
  public static String sql(RelayConfig config, String role, String password) {
    DSLContext render = DSL.using(SQLDialect.POSTGRES);
    StringBuilder sb = new StringBuilder();
    for (Query q : statements(config, role, password)) {
      sb.append(render.renderInlined(q)).append(";\n");
    }
    return sb.toString();
  }

  /** Runs the statements as {@code owner} (the outbox table's owner), in one transaction. */
  public static void apply(DSLContext owner, RelayConfig config, String role, String password) {
    owner.transaction(c -> statements(config, role, password).forEach(q -> c.dsl().execute(q)));
  }
}

package dev.ordinal.relay;

import java.util.List;
import org.jooq.DSLContext;
import org.jooq.Query;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;

/**
 * The least privilege the CDC relay needs, as SQL run once: a role with only {@code LOGIN
 * REPLICATION} (made by a superuser: PostgreSQL lets only a superuser give {@code REPLICATION}, or
 * from version 16 a role with {@code CREATEROLE} that has {@code REPLICATION} itself), then, by the
 * outbox table's owner, {@code USAGE} on the schema, {@code SELECT} on the outbox, read/write on
 * the relay's offsets table and on {@code outbox_relayed} (how far it published), and the
 * publication (so the relay does not need to own the table; the owner needs {@code CREATE} on the
 * database to make it). Identifiers are quoted and the password inlined as a literal by jOOQ.
 * {@code ./ordinal relay setup-sql} prints it.
 */
public final class RelaySetup {
  private RelaySetup() {}

  /** The statement that makes {@code role}: a superuser's to run. */
  public static Query role(String role, String password) {
    return DSL.query(
        "create role {0} login replication password {1}", DSL.name(role), DSL.inline(password));
  }

  /** What the owner of the outbox {@code config} relays runs for {@code role}, in order. */
  public static List<Query> ownerStatements(RelayConfig config, String role) {
    var schema = DSL.name(config.outboxSchema());
    var outbox = DSL.name(config.outboxSchema(), config.outboxTable().table());
    var offsets = DSL.name(config.outboxSchema(), config.offsetTable());
    var r = DSL.name(role);
    List<Query> statements =
        List.of(
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
    if (!config.outboxTable().isDefault()) {
      return statements; // a team's own table has no outbox_relayed beside it
    }
    // how far it published, for the outbox's retention (V4 of the outbox's migrations)
    return java.util.stream.Stream.concat(
            statements.stream(),
            java.util.stream.Stream.of(
                DSL.query(
                    "grant select, insert, update on table {0} to {1}",
                    DSL.name(config.outboxSchema(), "outbox_relayed"), r)))
        .toList();
  }

  /**
   * The statements as text, password included, for an operator to review and run: the role once, as
   * a superuser, then each outbox's part, as its owner; each part under a comment saying who runs
   * it.
   */
  public static String sql(List<RelayConfig> configs, String role, String password) {
    DSLContext render = DSL.using(SQLDialect.POSTGRES);
    StringBuilder sb = new StringBuilder();
    sb.append(
            "-- as a superuser (from PostgreSQL 16 also a role with CREATEROLE that has"
                + " REPLICATION itself):\n")
        .append(render.renderInlined(role(role, password)))
        .append(";\n");
    for (RelayConfig config : configs) {
      sb.append("-- as the owner of ")
          .append(config.outbox())
          .append(", who needs CREATE on the database for the publication:\n");
      for (Query q : ownerStatements(config, role)) {
        sb.append(render.renderInlined(q)).append(";\n");
      }
    }
    return sb.toString();
  }

  /**
   * Makes the role as {@code superuser}, then runs the outbox's part as {@code owner} (the outbox
   * table's owner), each in one transaction.
   */
  public static void apply(
      DSLContext superuser, DSLContext owner, RelayConfig config, String role, String password) {
    superuser.execute(role(role, password));
    owner.transaction(c -> ownerStatements(config, role).forEach(q -> c.dsl().execute(q)));
  }
}

package dev.ordinal.relay.internal;

import dev.ordinal.messaging.ConfigurationException;
import dev.ordinal.messaging.Preflight;
import dev.ordinal.relay.RelayConfig;
import dev.ordinal.runtime.ServerUnavailableException;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import org.jooq.DSLContext;
import org.jooq.Record2;
import org.jooq.impl.DSL;

/**
 * A slot and a publication serve one outbox. Two relays of different outboxes sharing a slot would
 * flush the slot past each other's events (the one whose stored position is behind would then lose
 * what was committed in between), so a relay refuses to stream when:
 *
 * <ul>
 *   <li>another schema holds the slot's offsets table ({@code <slot>_offsets}): that schema's relay
 *       used this slot;
 *   <li>the publication publishes tables, and the outbox ({@code <schema>.outbox} or {@code
 *       --outbox-table}) is not among them.
 * </ul>
 */
public final class SlotOwnership {
  private SlotOwnership() {}

  /**
   * @throws ConfigurationException one sentence naming the other outbox and the setting to change
   * @throws ServerUnavailableException when PostgreSQL does not answer
   */
  public static void check(RelayConfig c) {
    try (Connection conn = SlotPosition.connect(c)) {
      DSLContext dsl = DSL.using(conn);
      if (c.offsetStore() == RelayConfig.OffsetStore.POSTGRES) {
        List<String> others =
            dsl.select(DSL.field(DSL.name("n", "nspname"), String.class))
                .from(DSL.table(DSL.name("pg_catalog", "pg_class")).as("c"))
                .join(DSL.table(DSL.name("pg_catalog", "pg_namespace")).as("n"))
                .on(DSL.field(DSL.name("n", "oid")).eq(DSL.field(DSL.name("c", "relnamespace"))))
                .where(DSL.field(DSL.name("c", "relname"), String.class).eq(c.offsetTable()))
                .and(DSL.field(DSL.name("n", "nspname"), String.class).ne(c.outboxSchema()))
                .fetch(DSL.field(DSL.name("n", "nspname"), String.class));
        if (!others.isEmpty()) {
          throw new ConfigurationException(
              "Slot "
                  + c.slotName()
                  + " already serves the outbox of schema "
                  + others.get(0)
                  + " (its position is in "
                  + others.get(0)
                  + "."
                  + c.offsetTable()
                  + "), so this relay of "
                  + c.outbox()
                  + " would lose events: give it a slot of its own with --slot (the"
                  + " default is "
                  + RelayConfig.defaultName(c.outboxSchema())
                  + ").");
        }
      }
      List<Record2<String, String>> published =
          dsl.select(
                  DSL.field(DSL.name("schemaname"), String.class),
                  DSL.field(DSL.name("tablename"), String.class))
              .from(DSL.table(DSL.name("pg_catalog", "pg_publication_tables")))
              .where(DSL.field(DSL.name("pubname"), String.class).eq(c.publicationName()))
              .fetch();
      boolean ours =
          published.stream()
              .anyMatch(
                  r ->
                      c.outboxSchema().equals(r.value1())
                          && c.outboxTable().table().equals(r.value2()));
      if (!published.isEmpty() && !ours) {
        throw new ConfigurationException(
            "Publication "
                + c.publicationName()
                + " publishes "
                + published.get(0).value1()
                + "."
                + published.get(0).value2()
                + ", not "
                + c.outbox()
                + ": give this relay a publication of its own with --publication (the"
                + " default is "
                + RelayConfig.defaultName(c.outboxSchema())
                + ").");
      }
    } catch (SQLException e) {
      if (Preflight.unavailable(e)) {
        throw new ServerUnavailableException(
            "PostgreSQL did not answer the relay's slot check: " + EngineRun.rootMessage(e), e);
      }
      throw new ConfigurationException(
          "The relay's role "
              + c.db().user()
              + " cannot read the catalog to check slot "
              + c.slotName()
              + ": "
              + EngineRun.rootMessage(e),
          e);
    } catch (org.jooq.exception.DataAccessException e) {
      SQLException sql = e.getCause(SQLException.class);
      if (sql != null && Preflight.unavailable(sql)) {
        throw new ServerUnavailableException(
            "PostgreSQL did not answer the relay's slot check: " + EngineRun.rootMessage(e), e);
      }
      throw new ConfigurationException(
          "The relay could not check slot " + c.slotName() + ": " + EngineRun.rootMessage(e), e);
    }
  }
}

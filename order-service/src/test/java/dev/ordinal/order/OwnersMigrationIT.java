package dev.ordinal.order;

import static dev.ordinal.order.db.Tables.IDEMPOTENCY_KEY;
import static dev.ordinal.order.db.Tables.ORDERS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariDataSource;
import dev.ordinal.messaging.db.Migrations;
import dev.ordinal.order.internal.IdempotencyKeyRetention;
import dev.ordinal.testkit.OrdinalStackExtension;
import dev.ordinal.testkit.TestNamespace;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.math.BigDecimal;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.UUID;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The owner columns on the real PostgreSQL: rows written before them belong to {@code anonymous},
 * new rows must name their owner, a key is unique per owner, and key retention deletes the expired
 * (owner, key) rows only.
 */
@ExtendWith(OrdinalStackExtension.class)
class OwnersMigrationIT {

  private static HikariDataSource pool(TestNamespace ns, String schema) {
    return TestOrderService.database(ns).withSchema(schema).pool("owners-it", 2);
  }

  @Test
  void rowsWrittenBeforeOwnersExistedBelongToAnonymousAndNewOnesMustNameTheirs(TestNamespace ns) {
    String schema = ns.schema("legacy");
    try (HikariDataSource pool = pool(ns, schema)) {
      // the schema as the release before owners left it: V1 and V2
      Migrations.applyUpTo(pool, schema, "classpath:db/order", "flyway_history_order", "2");
      UUID legacy = UUID.randomUUID();
      DSLContext dsl = DSL.using(pool, SQLDialect.POSTGRES);
      // written as that release wrote them: no owner
      dsl.insertInto(ORDERS, ORDERS.ID, ORDERS.CUSTOMER_ID, ORDERS.CURRENCY, ORDERS.TOTAL)
          .values(legacy, "c-1", "EUR", BigDecimal.ONE)
          .execute();
      dsl.insertInto(
              IDEMPOTENCY_KEY, IDEMPOTENCY_KEY.IDEMPOTENCY_KEY_, IDEMPOTENCY_KEY.REQUEST_HASH)
          .values("old-key", "0".repeat(64))
          .execute();

      Migrations.applyOutbox(pool, schema);
      Migrations.apply(pool, schema, "classpath:db/order", "flyway_history_order");

      assertThat(dsl.select(ORDERS.OWNER).from(ORDERS).fetch(ORDERS.OWNER))
          .containsExactly("anonymous");
      assertThat(
              dsl.select(IDEMPOTENCY_KEY.OWNER).from(IDEMPOTENCY_KEY).fetch(IDEMPOTENCY_KEY.OWNER))
          .containsExactly("anonymous");
      assertThat(
              new OrderService(dsl, Clock.systemUTC()).find(ApiAuth.ANONYMOUS, legacy).isPresent())
          .isTrue();
      // no default any more: a row that does not name its owner is refused
      assertThatThrownBy(
              () ->
                  dsl.insertInto(
                          ORDERS, ORDERS.ID, ORDERS.CUSTOMER_ID, ORDERS.CURRENCY, ORDERS.TOTAL)
                      .values(UUID.randomUUID(), "c-2", "EUR", BigDecimal.ONE)
                      .execute())
          .hasMessageContaining("null value in column \"owner\"");
    }
  }

  @Test
  void keyRetentionDeletesTheExpiredRowOfAKeyAndLeavesAnotherOwnersFreshOne(TestNamespace ns) {
    String schema = ns.schema("retention");
    try (HikariDataSource pool = pool(ns, schema)) {
      OrderService.migrate(pool, schema);
      DSLContext dsl = DSL.using(pool, SQLDialect.POSTGRES);
      Instant now = Instant.parse("2026-03-01T12:00:00Z");
      Duration retention = Duration.ofHours(24);
      for (String[] row :
          new String[][] {{"alice", "25"}, {"bob", "1"}, {"carol", "25"}, {"carol", "1"}}) {
        String key = row[0].equals("carol") ? "carol-" + row[1] : "same-key";
        dsl.insertInto(IDEMPOTENCY_KEY)
            .set(IDEMPOTENCY_KEY.OWNER, row[0])
            .set(IDEMPOTENCY_KEY.IDEMPOTENCY_KEY_, key)
            .set(IDEMPOTENCY_KEY.REQUEST_HASH, "0".repeat(64))
            .set(
                IDEMPOTENCY_KEY.CREATED_AT,
                OffsetDateTime.ofInstant(
                    now.minus(Duration.ofHours(Long.parseLong(row[1]))), ZoneOffset.UTC))
            .execute();
      }
      int deleted =
          new IdempotencyKeyRetention(
                  dsl, retention, new SimpleMeterRegistry(), Clock.fixed(now, ZoneOffset.UTC))
              .runOnce();
      assertThat(deleted).isEqualTo(2);
      assertThat(
              dsl.select(IDEMPOTENCY_KEY.OWNER, IDEMPOTENCY_KEY.IDEMPOTENCY_KEY_)
                  .from(IDEMPOTENCY_KEY)
                  .orderBy(IDEMPOTENCY_KEY.OWNER, IDEMPOTENCY_KEY.IDEMPOTENCY_KEY_)
                  .fetch(r -> r.value1() + "/" + r.value2()))
          .containsExactly("bob/same-key", "carol/carol-1");
    }
  }
}

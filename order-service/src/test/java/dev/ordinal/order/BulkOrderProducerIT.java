package dev.ordinal.order;

import static dev.ordinal.messaging.db.Tables.OUTBOX;
import static dev.ordinal.order.db.Tables.ORDERS;
import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.ordinal.contracts.EventType;
import dev.ordinal.messaging.db.DatabaseSettings;
import dev.ordinal.testkit.OrdinalStackExtension;
import dev.ordinal.testkit.TestNamespace;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(OrdinalStackExtension.class)
class BulkOrderProducerIT {

  @Test
  void placesExactlyNBulkOrdersWithTheirEventsAndReportsProgress(TestNamespace ns)
      throws Exception {
    try (HikariDataSource pool =
        new DatabaseSettings(ns.stack().jdbcUrl(), ns.stack().dbUser(), ns.stack().dbPassword())
            .withSchema(ns.schema())
            .pool("bulk", 8)) {
      OrderService.migrate(pool, ns.schema());
      DSLContext dsl = DSL.using(pool, SQLDialect.POSTGRES);
      OrderService orders = new OrderService(dsl, Clock.systemUTC());
      List<BulkOrderProducer.Progress> progress = new ArrayList<>();

      BulkOrderProducer.Result r =
          new BulkOrderProducer(orders::place, 4, Channel.BULK, "BULK-1")
              .run(300, 200, progress::add);

      assertThat(r.placed()).isEqualTo(300);
      assertThat(r.failed()).isZero();
      assertThat(progress).last().isEqualTo(new BulkOrderProducer.Progress(300, 300, 0));
      assertThat(
              dsl.fetchCount(
                  ORDERS, ORDERS.CHANNEL.eq("bulk").and(ORDERS.INVOICE_SERIES.eq("BULK-1"))))
          .isEqualTo(300);
      assertThat(dsl.fetchCount(OUTBOX, OUTBOX.EVENT_TYPE.eq(EventType.ORDER_PLACED.wireName())))
          .isEqualTo(300);
      // open loop at 200/s: 300 orders cannot finish before their schedule does (1.495 s)
      assertThat(r.elapsed().toMillis()).isGreaterThanOrEqualTo(1495);
    }
  }
}

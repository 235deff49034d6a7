package dev.ordinal.order;

import dev.ordinal.messaging.db.DatabaseSettings;
import dev.ordinal.runtime.ManagementSettings;
import dev.ordinal.testkit.TestNamespace;
import java.util.function.UnaryOperator;

/** order-service started through its runtime on the test stack, as the API's ITs call it. */
final class TestOrderService {
  /** An order of one line, as a client posts it to {@code /orders}. */
  static final String ORDER =
      "{\"customerId\":\"c-1\",\"currency\":\"EUR\",\"lines\":[{\"sku\":\"A\",\"quantity\":1,"
          + "\"unitPrice\":\"9.90\"}]}";

  private TestOrderService() {}

  /** The stack's PostgreSQL, without a schema. */
  static DatabaseSettings database(TestNamespace ns) {
    return new DatabaseSettings(ns.stack().jdbcUrl(), ns.stack().dbUser(), ns.stack().dbPassword());
  }

  /**
   * order-service on {@code db} in the namespace's schema, its API on a free port with {@code
   * auth}, no management port; {@code more} sets anything else.
   */
  static OrderServiceApp start(
      DatabaseSettings db,
      TestNamespace ns,
      ApiAuth auth,
      UnaryOperator<OrderServiceSettings.Builder> more) {
    return OrderServiceApp.start(
        more.apply(
                OrderServiceSettings.builder(db)
                    .schema(ns.schema())
                    .port(0)
                    .auth(auth)
                    .management(ManagementSettings.off()))
            .build());
  }
}

package dev.ordinal.order;

import static dev.ordinal.order.db.Tables.ORDERS;
import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.zaxxer.hikari.HikariDataSource;
import dev.ordinal.messaging.db.DatabaseSettings;
import dev.ordinal.testkit.OrdinalStackExtension;
import dev.ordinal.testkit.TestNamespace;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.UUID;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.slf4j.LoggerFactory;

/**
 * order-service with {@code --auth none}, through its runtime, on the real PostgreSQL: callers need
 * no token and are all {@code anonymous}, one WARN line says so, and the API listens on every
 * interface by default.
 */
@ExtendWith(OrdinalStackExtension.class)
class UnauthenticatedApiIT {
  static final ObjectMapper JSON = new ObjectMapper();

  @Test
  void withAuthNoneCallersNeedNoTokenAreOneSubjectAndOneWarningIsLogged(TestNamespace ns)
      throws Exception {
    DatabaseSettings db = TestOrderService.database(ns);
    Logger logger = (Logger) LoggerFactory.getLogger(OrderHttpServer.class);
    ListAppender<ILoggingEvent> logged = new ListAppender<>();
    logged.start();
    logger.addAppender(logged);
    try (OrderServiceApp app = TestOrderService.start(db, ns, ApiAuth.none(), b -> b);
        HikariDataSource pool = db.withSchema(ns.schema()).pool("none-it", 2)) {
      HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
      String base = "http://127.0.0.1:" + app.port();
      HttpResponse<String> placed =
          http.send(
              HttpRequest.newBuilder(URI.create(base + "/orders"))
                  .header("Content-Type", "application/json")
                  .POST(HttpRequest.BodyPublishers.ofString(TestOrderService.ORDER))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(placed.statusCode()).as(placed.body()).isEqualTo(201);
      String id = JSON.readTree(placed.body()).get("orderId").asText();
      // a token, even a malformed one, is not looked at
      HttpResponse<String> read =
          http.send(
              HttpRequest.newBuilder(URI.create(base + "/orders/" + id))
                  .header("Authorization", "Bearer nonsense")
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(read.statusCode()).isEqualTo(200);

      DSLContext dsl = DSL.using(pool, SQLDialect.POSTGRES);
      assertThat(
              dsl.select(ORDERS.OWNER)
                  .from(ORDERS)
                  .where(ORDERS.ID.eq(UUID.fromString(id)))
                  .fetchOne(ORDERS.OWNER))
          .isEqualTo("anonymous");
      assertThat(logged.list)
          .filteredOn(e -> e.getLevel() == Level.WARN)
          .extracting(ILoggingEvent::getFormattedMessage)
          .containsExactly(OrderHttpServer.UNAUTHENTICATED);
      // the default host is every interface: another loopback address reaches it too
      try (Socket s = new Socket("127.0.0.2", app.port())) {
        assertThat(s.isConnected()).isTrue();
      }
    } finally {
      logger.detachAppender(logged);
    }
  }
}

package dev.ordinal.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code orders bulk} sends the bearer token {@code ORDINAL_ORDERS_TOKEN(_FILE)} gives with every
 * request, and stops in one sentence before placing anything when the service wants one it does not
 * have. The service here is a stand-in that accepts exactly one token (the order API's own checks
 * are OrderApiAuthIT's).
 */
class OrdersBulkTokenTest extends CommandTest {
  static final String TOKEN = "header.payload.signature";

  HttpServer server;
  final List<String> placedWith = new CopyOnWriteArrayList<>();

  @BeforeEach
  void start() throws IOException {
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext("/orders", this::answer);
    server.start();
  }

  @AfterEach
  void stop() {
    server.stop(0);
  }

  private void answer(HttpExchange x) throws IOException {
    String auth = x.getRequestHeaders().getFirst("Authorization");
    boolean accepted = ("Bearer " + TOKEN).equals(auth);
    int status;
    if (!accepted) {
      status = 401;
    } else if (x.getRequestMethod().equals("POST")) {
      placedWith.add(auth);
      status = 201;
    } else {
      status = 404;
    }
    byte[] body = "{}".getBytes(StandardCharsets.UTF_8);
    x.sendResponseHeaders(status, body.length);
    x.getResponseBody().write(body);
    x.close();
  }

  private String url() {
    return "http://127.0.0.1:" + server.getAddress().getPort();
  }

  private record Run(int status, String out, String err) {}

  private Run bulk(Map<String, String> env) {
    OrdersCommand.Bulk command = new OrdersCommand.Bulk();
    command.env = env;
    CommandLine cli = printingHere(Main.configured(new CommandLine(command), env));
    int status = cli.execute("--count", "3", "--rate", "100", "--url", url());
    return new Run(status, out.toString(), err.toString());
  }

  @Test
  void everyOrderCarriesTheTokenTheFileHolds(@TempDir Path dir) throws Exception {
    Path file = Files.writeString(dir.resolve("token"), TOKEN + "\n");

    Run r = bulk(Map.of("ORDINAL_ORDERS_TOKEN_FILE", file.toString()));

    assertThat(r.status()).as(r.toString()).isZero();
    assertThat(placedWith).hasSize(3).containsOnly("Bearer " + TOKEN);
    assertThat(r.out() + r.err()).doesNotContain(TOKEN);
  }

  @Test
  void withoutATokenItStopsInOneSentenceAndPlacesNothing() {
    Run r = bulk(Map.of());

    assertThat(r.status()).isEqualTo(2);
    assertThat(r.err().lines().toList())
        .containsExactly(
            "ordinal: order-service at "
                + url()
                + " authenticates its callers: set ORDINAL_ORDERS_TOKEN (or"
                + " ORDINAL_ORDERS_TOKEN_FILE) to a bearer token with the scope orders:write.");
    assertThat(placedWith).isEmpty();
  }

  @Test
  void aTokenTheServiceRefusesIsSaidSoAndNothingIsPlaced() {
    Run r = bulk(Map.of("ORDINAL_ORDERS_TOKEN", "not-the-one"));

    assertThat(r.status()).isEqualTo(2);
    assertThat(r.err()).contains("did not accept the token").doesNotContain("not-the-one");
    assertThat(placedWith).isEmpty();
  }
}

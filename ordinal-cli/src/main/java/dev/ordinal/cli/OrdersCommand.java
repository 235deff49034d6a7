package dev.ordinal.cli;

import dev.ordinal.order.BulkOrderProducer;
import dev.ordinal.order.Channel;
import dev.ordinal.order.NewOrder;
import dev.ordinal.order.OrderClient;
import java.io.PrintWriter;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Command(
    name = "orders",
    mixinStandardHelpOptions = true,
    description = "Load for order-service.",
    subcommands = {OrdersCommand.Bulk.class})
final class OrdersCommand extends CommandGroup {

  @Command(
      name = "bulk",
      mixinStandardHelpOptions = true,
      description = {
        "Places N orders on the bulk channel at a fixed rate through a running order-service"
            + " (start one with ./ordinal order-service). Open loop: latency counts from when each"
            + " order was due. Prints progress each second, then the figures.",
        "",
        "An order-service started with --auth jwt needs a bearer token with the scope"
            + " orders:write: it comes from ORDINAL_ORDERS_TOKEN, or the file"
            + " ORDINAL_ORDERS_TOKEN_FILE names (never from the command line).",
        "",
        "Exit status: 0 when every order was placed, 1 when some failed, 2 on bad input."
      })
  static final class Bulk implements Callable<Integer> {
    @Option(
        names = "--count",
        defaultValue = "1000",
        description = "Orders to place (default ${DEFAULT-VALUE}).")
    long count;

    @Option(
        names = "--rate",
        defaultValue = "100",
        description = "Orders per second (default ${DEFAULT-VALUE}).")
    double rate;

    @Option(
        names = "--url",
        defaultValue = "http://localhost:8080",
        description = "Base URL of order-service (default ${DEFAULT-VALUE}).")
    URI url;

    @Option(names = "--series", description = "Invoice series for the orders (default: billing's).")
    String series;

    @Option(
        names = "--concurrency",
        defaultValue = "16",
        description = "Requests in flight at most (default ${DEFAULT-VALUE}).")
    int concurrency;

    @Option(
        names = "--channel",
        defaultValue = "bulk",
        description = "interactive or bulk (default ${DEFAULT-VALUE}).")
    String channel;

    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    // visible for testing
    java.util.Map<String, String> env = System.getenv();

    @Override
    public Integer call() throws Exception {
      CommandLine cli = spec.commandLine();
      String token = Settings.environment(env).get(TOKEN);
      if (token != null && token.isBlank()) {
        token = null;
      }
      if (count < 1 || count > 10_000_000) {
        throw new CommandLine.ParameterException(
            cli, "--count must be 1 to 10000000, not " + count);
      }
      if (!(rate > 0) || rate > 100_000) {
        throw new CommandLine.ParameterException(
            cli, "--rate must be above 0 and at most 100000, not " + rate);
      }
      if (concurrency < 1 || concurrency > 1000) {
        throw new CommandLine.ParameterException(
            cli, "--concurrency must be 1 to 1000, not " + concurrency);
      }
      Channel ch =
          Channel.fromWire(channel)
              .orElseThrow(
                  () ->
                      new CommandLine.ParameterException(
                          cli, "--channel must be interactive or bulk, not " + channel));
      if (series != null && !NewOrder.SERIES.matcher(series).matches()) {
        throw new CommandLine.ParameterException(
            cli, "--series must be 1 to 16 upper-case letters, digits or '-', not " + series);
      }
      if (url.getScheme() == null || !url.getScheme().startsWith("http") || url.getHost() == null) {
        throw new CommandLine.ParameterException(
            cli, "--url must be an http(s) URL such as http://localhost:8080, not " + url);
      }
      PrintWriter out = cli.getOut();
      int answer = probe(url, token);
      if (answer == 401) {
        cli.getErr()
            .println(
                "ordinal: order-service at "
                    + url
                    + (token == null
                        ? " authenticates its callers: set "
                        : " did not accept the token: set ")
                    + TOKEN
                    + " (or "
                    + TOKEN
                    + "_FILE) to a bearer token with the scope orders:write.");
        return 2;
      }
      // 404 for an order that does not exist; 403 when the token may place but not read orders
      if (answer != 404 && answer != 403) {
        cli.getErr()
            .println(
                "ordinal: no order-service answers at "
                    + url
                    + "; start one with ./ordinal order-service, or fix --url.");
        return 2;
      }
      OrderClient client = new OrderClient(url, token);
      BulkOrderProducer producer =
          new BulkOrderProducer(
              order -> {
                HttpResponse<String> r = client.place(order, null);
                if (r.statusCode() != 201) {
                  throw new IllegalStateException("HTTP " + r.statusCode() + ": " + r.body());
                }
              },
              concurrency,
              ch,
              series);
      out.printf("Placing %d %s orders at %.0f/s through %s%n", count, ch.wireName(), rate, url);
      out.flush();
      BulkOrderProducer.Result r =
          producer.run(
              count,
              rate,
              p -> {
                out.printf("  due %d, placed %d, failed %d%n", p.due(), p.placed(), p.failed());
                out.flush();
              });
      out.printf(
          "Placed %d, failed %d in %.1f s (%.0f orders/s); latency from due time p50 %.1f ms, p99 %.1f ms, max %.1f ms%n",
          r.placed(),
          r.failed(),
          r.elapsed().toMillis() / 1000.0,
          r.ratePerSecond(),
          r.p50Micros() / 1000.0,
          r.p99Micros() / 1000.0,
          r.maxMicros() / 1000.0);
      out.flush();
      return r.failed() == 0 ? 0 : 1;
    }

    /**
     * True when order-service answers on its API port: a look-up of an order that does not exist
     * gets its 404 (health is on the management port, which the caller may not reach).
     */
    /** The variable holding the bearer token, or the file it is in with {@code _FILE}. */
    static final String TOKEN = "ORDINAL_ORDERS_TOKEN";

    /** What order-service answers to a read of an order that does not exist; -1 for no answer. */
    private static int probe(URI url, String token) throws InterruptedException {
      try {
        HttpRequest.Builder get =
            HttpRequest.newBuilder(url.resolve("/orders/" + new java.util.UUID(0, 0)))
                .timeout(Duration.ofSeconds(5));
        if (token != null) {
          get.header("Authorization", "Bearer " + token);
        }
        return HttpClient.newHttpClient()
            .send(get.build(), HttpResponse.BodyHandlers.discarding())
            .statusCode();
      } catch (ConnectException e) {
        return -1;
      } catch (java.io.IOException e) {
        return -1;
      }
    }
  }
}

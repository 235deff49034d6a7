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

    @Override
    public Integer call() throws Exception {
      CommandLine cli = spec.commandLine();
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
      if (!ready(url)) {
        cli.getErr()
            .println(
                "ordinal: no order-service answers at "
                    + url
                    + "; start one with ./ordinal order-service, or fix --url.");
        return 2;
      }
      OrderClient client = new OrderClient(url);
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
    private static boolean ready(URI url) throws InterruptedException {
      try {
        HttpResponse<Void> r =
            HttpClient.newHttpClient()
                .send(
                    HttpRequest.newBuilder(url.resolve("/orders/" + new java.util.UUID(0, 0)))
                        .timeout(Duration.ofSeconds(5))
                        .build(),
                    HttpResponse.BodyHandlers.discarding());
        return r.statusCode() == 404;
      } catch (ConnectException e) {
        return false;
      } catch (java.io.IOException e) {
        return false;
      }
    }
  }
}

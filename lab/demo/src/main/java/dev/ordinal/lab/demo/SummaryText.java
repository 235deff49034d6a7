package dev.ordinal.lab.demo;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** {@link DemoSummary#text()}: the summary as the demo prints it, line by line. */
final class SummaryText {
  private final DemoSummary sum;
  private final PrintWriter out;

  private SummaryText(DemoSummary sum, PrintWriter out) {
    this.sum = sum;
    this.out = out;
  }

  /** The text, from "Summary" to the closing OK or FAILED line. */
  static String of(DemoSummary summary) {
    StringWriter s = new StringWriter();
    PrintWriter out = new PrintWriter(s);
    SummaryText t = new SummaryText(summary, out);
    out.println("Summary");
    t.orderLines();
    t.messageLines();
    t.billingLines();
    t.chaosLines();
    t.seriesLines();
    t.faultLines();
    t.latencyLines();
    t.verdictLines();
    out.flush();
    return s.toString();
  }

  private void orderLines() {
    DemoSummary.Placing p = sum.placing();
    DemoSummary.Pace pace = sum.pace();
    out.printf(
        "  orders placed           %6d  in %d s (%d interactive%s, %d bulk; %d failed requests)%n",
        p.orders(),
        pace.driveSeconds(),
        p.interactiveOrders(),
        pace.offeredRate() > 0 ? " at " + pace.offeredRate() + "/s" : "",
        p.bulkOrders(),
        p.failedRequests());
    out.printf(
        "  idempotent retries      %6d  (same Idempotency-Key, same order: %s%s)%n",
        p.idempotentRetries(),
        p.idempotentMismatches() == 0 ? "yes" : p.idempotentMismatches() + " differed",
        p.idempotentRetriesFailed() == 0
            ? ""
            : "; " + p.idempotentRetriesFailed() + " retries failed while a server was away");
    out.printf("  cancelled               %6d%n", p.cancelled());
  }

  private void messageLines() {
    DemoSummary.Messages m = sum.messages();
    out.printf(
        "  outbox rows             %6d  (written in the order's transaction; %d not on Kafka)%n",
        m.outboxRows(), m.outboxMissing());
    out.printf(
        "  relayed message ids     %6d  (Debezium -> Kafka, acks=all; %d records on the topics)%n",
        m.relayed(), m.records());
    out.printf(
        "  injected duplicates     %6d  redelivered (same id), %d re-published (new id)%s%n",
        m.redelivered(),
        m.republished(),
        m.duplicatesNotSent() == 0
            ? ""
            : "; " + m.duplicatesNotSent() + " not sent (the broker was away), not counted");
    out.printf(
        "  duplicates skipped      %6d  (billing's inbox conflicts, from each instance's /metrics;"
            + " at least the %d redelivered; relay re-sends after a crash included)%n",
        m.duplicatesSkipped(), m.redelivered());
    out.printf(
        "  inbox rows              %6d  (one per distinct message id: %d)%n",
        m.inboxRows(), m.distinctMessageIds());
  }

  private void billingLines() {
    DemoSummary.Billing b = sum.billing();
    DemoSummary.Integrator i = sum.integrator();
    out.printf(
        "  invoices                %6d  (%d issued, %d cancelled before issue, %d voided)%n",
        b.invoices(), b.issued(), b.invoicesCancelled(), b.invoicesVoided());
    out.printf(
        "  charges                 %6d  (gateway holds %d for these orders; %d refunded, %d never"
            + " charged after a cancellation)%n",
        b.charges(), b.gatewayCharges(), b.refunded(), b.neverCharged());
    out.printf(
        "  integrator              %6d  calls for %d issued invoices (%d accepted, %d transient"
            + " failures, %d answers dropped after accepting, %d numbers offered twice)%n",
        i.integratorCalls(),
        b.issued(),
        i.integratorAccepted(),
        i.integratorTransientFailures(),
        i.integratorDroppedAfterAccept(),
        i.integratorDuplicateAttempts());
  }

  private void chaosLines() {
    DemoSummary.Injected c = sum.injected();
    if (!c.chaos()) {
      return;
    }
    out.printf(
        "  out of order            %6d  orders cancelled before they were placed: %s%n",
        c.cancelledBeforePlaced(),
        c.cancelledBeforePlacedBroken() == 0
            ? "no number, no charge"
            : c.cancelledBeforePlacedBroken() + " BROKEN");
    out.printf(
        "  late accepts            %6d  stored by the integrator after billing gave up;"
            + " numbers VOIDED or in ERROR here that the integrator holds: %d%n",
        sum.integrator().lateAccepts(), sum.integrator().integratorDisagrees());
  }

  private void seriesLines() {
    sum.series()
        .forEach(
            (name, r) ->
                out.printf(
                    "  series %-12s     %6d  numbers 1..%d, %s%n",
                    name,
                    r.invoices(),
                    r.highest(),
                    r.clean()
                        ? "gap audit clean (no gap, no duplicate)"
                        : r.gaps() + " gaps, " + r.duplicates() + " duplicates"));
    out.printf(
        "  same-series integrator calls in flight at once: up to %d%n",
        sum.integrator().maxSameSeriesInFlight());
    DemoSummary.Injected c = sum.injected();
    if (c.relayKills() + c.billingKills() > 0) {
      out.printf(
          "  chaos                   %6d  kills of the relay, %d of a billing instance (SIGKILL)%n",
          c.relayKills(), c.billingKills());
    }
    DemoSummary.Pace pace = sum.pace();
    if (pace.notAttempted() > 0) {
      out.printf(
          "  orders not attempted    %6d  (all %d requests were in flight: a server was away, or"
              + " the services did not keep up with the rate)%n",
          pace.notAttempted(), pace.maxInFlight());
    }
  }

  private void faultLines() {
    List<DemoSummary.Fault> faults = sum.injected().faults();
    if (faults.isEmpty()) {
      return;
    }
    out.println("  faults (time from the server's return, or the restart, to every service ready)");
    for (DemoSummary.Fault f : faults) {
      out.printf(
          "    %-44s %s; %s%s%n",
          f.description() + (f.detail().isEmpty() ? "" : " (" + f.detail() + ")"),
          f.outageMs() > 0 ? "away " + seconds(f.outageMs()) : "at once",
          f.allReadyAfterMs() < 0
              ? "NOT every service ready again"
              : "ready after " + seconds(f.allReadyAfterMs()),
          restarts(f));
      List<String> each = new ArrayList<>();
      for (DemoSummary.Service s : f.services()) {
        List<String> how = new ArrayList<>();
        if (s.dependent()) {
          how.add("hit by it");
        }
        if (s.wentUnready()) {
          how.add("went unready");
        }
        each.add(
            s.name()
                + (how.isEmpty() ? "" : " (" + String.join(", ", how) + ")")
                + (s.readyAfterMs() < 0
                    ? " NOT ready"
                    : " ready after " + seconds(s.readyAfterMs())));
      }
      out.println("      per service: " + String.join("; ", each));
    }
  }

  private static String restarts(DemoSummary.Fault f) {
    List<String> parts = new ArrayList<>();
    for (DemoSummary.Service s : f.services()) {
      if (!s.alive()) {
        parts.add(s.name() + " NOT RUNNING");
      }
      if (s.restarts() == null) {
        parts.add(s.name() + " unknown (no /metrics)");
      } else {
        s.restarts().forEach((loop, n) -> parts.add(s.name() + " " + loop + " +" + n.longValue()));
      }
    }
    return parts.isEmpty() ? "" : "; loop restarts: " + String.join(", ", parts);
  }

  private void latencyLines() {
    DemoSummary.Lanes applied = sum.commitToAppliedMs();
    DemoSummary.Lanes issued = sum.commitToIssuedMs();
    out.printf("  commit -> applied       interactive %s%n", latency(applied.interactive()));
    out.printf("                          bulk        %s%n", latency(applied.bulk()));
    out.printf("  commit -> issued        interactive %s%n", latency(issued.interactive()));
    out.printf("                          bulk        %s%n", latency(issued.bulk()));
    if (sum.notSettled() != null) {
      out.printf("  NOT SETTLED %s%n", sum.notSettled());
    }
  }

  private void verdictLines() {
    out.println();
    out.println("Invariants (DESIGN.md)");
    sum.invariants()
        .forEach(
            (k, held) ->
                out.printf(
                    "  %-34s %s%n",
                    k,
                    held
                        ? "held"
                        : "BROKEN"
                            + (sum.broken().containsKey(k) ? ": " + sum.broken().get(k) : "")));
    out.println();
    out.println(
        sum.ok()
            ? "OK: every order was relayed, invoiced, numbered and charged exactly once, through"
                + " duplicates"
                + (sum.injected().chaos() ? " and crashes" : "")
                + "; every series is gapless."
            : "FAILED: see the counts above; the logs are in " + sum.logs());
  }

  private static String latency(DemoSummary.Latency l) {
    if (l.count() == 0) {
      return "no samples";
    }
    return String.format(
        "p50 %d ms, p99 %d ms, max %d ms (%d orders)", l.p50(), l.p99(), l.max(), l.count());
  }

  /** Milliseconds as seconds with one decimal: {@code 1.5 s}. */
  static String seconds(long ms) {
    return String.format(Locale.ROOT, "%.1f s", ms / 1000.0);
  }
}

package dev.ordinal.lab.numbering;

import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.UUID;

/**
 * What one {@link NumberingLab} run measured: one row per numbering strategy, one per consumer.
 * {@link #table()} prints them; {@link #projectWayHolds()} says whether the project's rows show
 * what they must.
 */
public record LabResult(
    LabConfig config, List<StrategyRow> strategies, List<ConsumerRow> consumers) {

  /** The four numbering strategies, in the order the table shows them. */
  public enum Strategy {
    MAX_PLUS_ONE("max1", "MAX()+1 at send time"),
    ENQUEUE_TIME("enqueue", "numbering at enqueue time"),
    CALL_IN_TRANSACTION("tx", "one transaction, call inside"),
    JUST_IN_TIME("jit", "just-in-time reservation");

    private final String key;
    private final String label;

    Strategy(String key, String label) {
      this.key = key;
      this.label = label;
    }

    String key() {
      return key;
    }

    public String label() {
      return label;
    }
  }

  /** The two ways of consuming one order's message delivered several times at once. */
  public enum ConsumerWay {
    NAIVE_CHECK_THEN_ACT("naive check-then-act, fresh charge key"),
    INBOX("inbox + ON CONFLICT + key = order id");

    private final String label;

    ConsumerWay(String label) {
      this.label = label;
    }

    public String label() {
      return label;
    }
  }

  /**
   * One strategy's figures.
   *
   * @param series the series it numbered (its own)
   * @param invoices invoices in its workload
   * @param issued accepted by the integrator and stored as issued
   * @param rejected refused for good by the integrator (422)
   * @param cancelled orders cancelled before sending
   * @param unfinished still open when the run ended (0 unless something got stuck)
   * @param calls submissions the integrator received
   * @param duplicatesAtIntegrator submissions the integrator refused because it held another
   *     invoice under that number (409)
   * @param gaps missing numbers in the series (see {@link NumberingStrategy.SeriesFigures})
   * @param duplicateNumbers numbers stored for two issued invoices
   * @param highest highest number handed out
   * @param maxInFlight most submissions in flight at once
   * @param meanInFlight submissions in flight on average over {@link #wall}: how much of the
   *     workers' time went to the integrator rather than to the database or to waiting
   * @param wall time to send the whole workload
   * @param note how its gaps or its numbers come about
   */
  public record StrategyRow(
      Strategy strategy,
      String series,
      int invoices,
      int issued,
      int rejected,
      int cancelled,
      int unfinished,
      long calls,
      long duplicatesAtIntegrator,
      long gaps,
      long duplicateNumbers,
      long highest,
      int maxInFlight,
      double meanInFlight,
      Duration wall,
      String note) {
    /** Issued invoices per second of {@link #wall}. */
    public double invoicesPerSecond() {
      return wall.isZero() ? 0 : issued / (wall.toNanos() / 1e9);
    }
  }

  /**
   * One consumer's figures.
   *
   * @param deliveries applications of the orders' messages (orders × concurrent deliveries)
   * @param invoices invoice rows for those orders
   * @param charges charges the gateway made for those orders
   * @param ordersInvoicedMoreThanOnce orders with two or more invoices
   * @param ordersChargedMoreThanOnce orders charged two or more times
   * @param skippedByInbox deliveries the inbox recognised as already applied
   * @param orderIds the orders of the race, to check against the gateway
   */
  public record ConsumerRow(
      ConsumerWay way,
      int orders,
      int deliveries,
      int invoices,
      long charges,
      int ordersInvoicedMoreThanOnce,
      int ordersChargedMoreThanOnce,
      int skippedByInbox,
      List<UUID> orderIds) {}

  public StrategyRow strategy(Strategy s) {
    return strategies.stream()
        .filter(r -> r.strategy() == s)
        .findFirst()
        .orElseThrow(() -> new IllegalArgumentException("no row for " + s));
  }

  public ConsumerRow consumer(ConsumerWay w) {
    return consumers.stream()
        .filter(r -> r.way() == w)
        .findFirst()
        .orElseThrow(() -> new IllegalArgumentException("no row for " + w));
  }

  /**
   * The just-in-time row has no duplicate at the integrator, no gap and nothing unfinished, and the
   * inbox row has exactly one invoice and one charge per order.
   */
  public boolean projectWayHolds() {
    StrategyRow jit = strategy(Strategy.JUST_IN_TIME);
    ConsumerRow inbox = consumer(ConsumerWay.INBOX);
    return jit.duplicatesAtIntegrator() == 0
        && jit.gaps() == 0
        && jit.duplicateNumbers() == 0
        && jit.unfinished() == 0
        && jit.highest() == jit.issued() + jit.rejected()
        && inbox.invoices() == inbox.orders()
        && inbox.charges() == inbox.orders()
        && inbox.ordersInvoicedMoreThanOnce() == 0
        && inbox.ordersChargedMoreThanOnce() == 0;
  }

  /** The table, as {@code ./ordinal demo --strategies} prints it. */
  public String table() {
    StringBuilder b = new StringBuilder();
    b.append(
        String.format(
            Locale.ROOT,
            "Numbering strategies: %d invoices each (%d orders cancelled before sending), %d"
                + " workers,%n  integrator %d-%d ms, %.0f%% transient failures (503), %.0f%%"
                + " rejections (422); one series per strategy%n%n",
            config.invoices(),
            config.cancelled(),
            config.workers(),
            config.latencyMin().toMillis(),
            config.latencyMax().toMillis(),
            config.transientFailureRate() * 100,
            config.rejectionRate() * 100));
    String head = "%-30s %6s %8s %9s %6s %10s %5s %16s %8s %10s%n";
    b.append(
        String.format(
            Locale.ROOT,
            head,
            "strategy",
            "issued",
            "rejected",
            "cancelled",
            "calls",
            "duplicates",
            "gaps",
            "in flight max/avg",
            "wall ms",
            "invoices/s"));
    for (StrategyRow r : strategies) {
      b.append(
          String.format(
              Locale.ROOT,
              "%-30s %6d %8d %9d %6d %10d %5d %12d/%3.1f %8d %10.1f%n",
              r.strategy().label(),
              r.issued(),
              r.rejected(),
              r.cancelled(),
              r.calls(),
              r.duplicatesAtIntegrator(),
              r.gaps(),
              r.maxInFlight(),
              r.meanInFlight(),
              r.wall().toMillis(),
              r.invoicesPerSecond()));
    }
    b.append(
        String.format(
            "  duplicates: numbers the integrator saw for a second invoice (409); gaps: numbers%n"
                + "  handed out that no issued invoice holds and nothing accounts for; in flight:%n"
                + "  integrator calls at once, at most and on average over the wall time%n"));
    for (StrategyRow r : strategies) {
      if (!r.note().isEmpty() || r.unfinished() > 0 || r.duplicateNumbers() > 0) {
        b.append("  ")
            .append(r.strategy().label())
            .append(": ")
            .append(r.note())
            .append(
                r.duplicateNumbers() > 0
                    ? "; " + r.duplicateNumbers() + " numbers stored twice"
                    : "")
            .append(r.unfinished() > 0 ? "; " + r.unfinished() + " left unfinished" : "")
            .append('\n');
      }
    }
    b.append(
        String.format(
            Locale.ROOT,
            "%nOne order's message applied by %d threads at once, %d orders; %d ms pause between"
                + " check and write%n  (in both consumers) to widen the race window%n%n",
            config.deliveries(),
            config.consumerOrders(),
            config.raceWindow().toMillis()));
    String chead = "%-40s %6s %10s %8s %7s %13s %12s%n";
    b.append(
        String.format(
            Locale.ROOT,
            chead,
            "consumer",
            "orders",
            "deliveries",
            "invoices",
            "charges",
            "orders 2+ inv",
            "orders 2+ ch"));
    for (ConsumerRow r : consumers) {
      b.append(
          String.format(
              Locale.ROOT,
              "%-40s %6d %10d %8d %7d %13d %12d%n",
              r.way().label(),
              r.orders(),
              r.deliveries(),
              r.invoices(),
              r.charges(),
              r.ordersInvoicedMoreThanOnce(),
              r.ordersChargedMoreThanOnce()));
    }
    ConsumerRow inbox = consumer(ConsumerWay.INBOX);
    b.append(
        String.format(
            Locale.ROOT,
            "  the inbox skipped %d of %d deliveries as already applied%n",
            inbox.skippedByInbox(),
            inbox.deliveries()));
    return b.toString();
  }
}

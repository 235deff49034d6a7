package dev.ordinal.lab.bench;

import com.zaxxer.hikari.HikariDataSource;
import dev.ordinal.billing.InvoiceHandler;
import dev.ordinal.contracts.EventType;
import dev.ordinal.lab.bench.BillingBench.Settings;
import dev.ordinal.lab.bench.BillingConsumerBench.Mode;
import dev.ordinal.messaging.db.DatabaseSettings;
import dev.ordinal.messaging.inbox.Envelope;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.function.Consumer;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;

/**
 * What the inbox row adds to one record's transaction, with one client and no Kafka in the way: the
 * same kind of records applied one after the other, each in its transaction, with the inbox row and
 * without it, each run into a fresh schema, in the order with, without, without, with (so neither
 * has the warmer JVM or the emptier tables every time); wall time, client CPU and WAL bytes per
 * record, the two runs of each averaged; and where the WAL of the last run with the inbox row went,
 * by relation ({@link WalByRelation}).
 */
record BillingOneClient(
    NumberingBench.Profile with, NumberingBench.Profile without, String walWithInbox) {

  static BillingOneClient measure(
      DatabaseSettings db, Settings s, String prefix, Consumer<String> progress) {
    int n = records(s);
    InvoiceHandler handler = new InvoiceHandler(Clock.systemUTC());
    Map<Mode, List<NumberingBench.Profile>> byMode = new LinkedHashMap<>();
    String walWithInbox = "";
    for (Mode mode : List.of(Mode.LOOP_INBOX, Mode.NO_INBOX, Mode.NO_INBOX, Mode.LOOP_INBOX)) {
      String schema = prefix + "_one_" + mode.name().toLowerCase(Locale.ROOT);
      try (HikariDataSource pool = BillingBench.fresh(db, schema, 2)) {
        DSLContext dsl = DSL.using(pool, SQLDialect.POSTGRES);
        List<Envelope> messages = new ArrayList<>(n);
        for (int k = 0; k < n; k++) {
          UUID order = UUID.randomUUID();
          messages.add(
              new Envelope(
                  UUID.randomUUID().toString(),
                  EventType.ORDER_PLACED.wireName(),
                  null,
                  order.toString(),
                  BillingBench.orderPlaced(order),
                  prefix + "-one-client",
                  0,
                  k));
        }
        Iterator<Envelope> next = messages.iterator();
        NumberingBench.Profiled p =
            NumberingBench.profileWithWal(
                dsl, n, () -> BillingConsumerBench.apply(dsl, handler, next.next(), mode));
        byMode.computeIfAbsent(mode, m -> new ArrayList<>()).add(p.profile());
        if (mode == Mode.LOOP_INBOX) {
          // the last run's
          walWithInbox = p.walByRelation();
        }
      } finally {
        BillingBench.dropSchema(db, schema);
      }
    }
    NumberingBench.Profile with = mean(byMode.get(Mode.LOOP_INBOX));
    NumberingBench.Profile without = mean(byMode.get(Mode.NO_INBOX));
    progress.accept(
        String.format(
            "one client, %,d records each: with the inbox row %.0f us, %.0f us client CPU, %.0f WAL"
                + " bytes per record; without it %.0f us, %.0f us client CPU, %.0f WAL bytes",
            n,
            with.micros(),
            with.cpuMicros(),
            with.walBytes(),
            without.micros(),
            without.cpuMicros(),
            without.walBytes()));
    progress.accept("one client, WAL per record with the inbox row, by relation: " + walWithInbox);
    return new BillingOneClient(with, without, walWithInbox);
  }

  private static NumberingBench.Profile mean(List<NumberingBench.Profile> ps) {
    return new NumberingBench.Profile(
        ps.stream().mapToDouble(NumberingBench.Profile::micros).average().orElseThrow(),
        ps.stream().mapToDouble(NumberingBench.Profile::cpuMicros).average().orElseThrow(),
        ps.stream().mapToDouble(NumberingBench.Profile::walBytes).average().orElseThrow());
  }

  static int records(Settings s) {
    return s.rounds() > 1 ? 3_000 : 1_000;
  }

  /** Its rows: time, client CPU and WAL per record with the inbox row, the limit without it. */
  List<NumberingBench.Row> rows(Settings s) {
    List<NumberingBench.Row> rows = new ArrayList<>();
    rows.add(
        new NumberingBench.Row(
            String.format(
                "consumer, one client, time per record with the inbox row (limit = without it),"
                    + " %,d records one after the other in each of 4 runs (with, without, without,"
                    + " with; means)",
                records(s)),
            with.micros(),
            "us",
            without.micros(),
            "-"));
    rows.add(
        new NumberingBench.Row(
            "consumer, one client, client CPU per record with the inbox row (limit = without it)",
            with.cpuMicros(),
            "us",
            without.cpuMicros(),
            "-"));
    rows.add(
        new NumberingBench.Row(
            "consumer, one client, WAL per record with the inbox row (limit = without it; with"
                + " it, bytes per record by relation: "
                + walWithInbox
                + ")",
            with.walBytes(),
            "bytes",
            without.walBytes(),
            "-"));
    return rows;
  }
}

package dev.ordinal.cli;

import com.zaxxer.hikari.HikariDataSource;
import dev.ordinal.billing.GapAudit;
import dev.ordinal.billing.InvoiceStatus;
import dev.ordinal.messaging.Preflight;
import dev.ordinal.messaging.db.DatabaseSettings;
import java.io.PrintWriter;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

@Command(
    name = "audit",
    mixinStandardHelpOptions = true,
    description = {
      "Gap audit of invoice numbers: per series the highest number, counts by status, every gap"
          + " and every duplicate.",
      "",
      "Database: ORDINAL_DB_URL / ORDINAL_DB_USER / ORDINAL_DB_PASSWORD, schema --schema.",
      "Exit status: 0 when every series is exactly 1..N; 1 when a gap or a duplicate exists;"
          + " 2 on bad input."
    })
final class AuditCommand implements Callable<Integer> {
  @Option(names = "--series", description = "Only this series (default: all).")
  String series;

  /** Billing's schema, and the environment that names its database; visible for testing. */
  @Mixin InvoicesCommand.Target billing = new InvoicesCommand.Target();

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() {
    PrintWriter out = spec.commandLine().getOut();
    DatabaseSettings db = ServerSettings.from(billing.env).database("audit");
    Preflight.checkPostgres(db, false);
    try (HikariDataSource pool = db.withSchema(billing.schema).pool("audit", 2)) {
      List<GapAudit.SeriesReport> reports =
          new GapAudit(DSL.using(pool, SQLDialect.POSTGRES)).run(series);
      return print(out, reports);
    }
  }

  static int print(PrintWriter out, List<GapAudit.SeriesReport> reports) {
    if (reports.isEmpty()) {
      out.println("No invoices" + ".");
      out.flush();
      return 0;
    }
    boolean clean = true;
    for (GapAudit.SeriesReport r : reports) {
      String counts =
          r.byStatus().entrySet().stream()
              .map(
                  (Map.Entry<InvoiceStatus, Integer> e) ->
                      e.getKey().name().toLowerCase() + " " + e.getValue())
              .collect(Collectors.joining(", "));
      out.printf("series %-16s highest %d  (%s)%n", r.series(), r.highest(), counts);
      if (r.clean()) {
        out.println("  numbers 1.." + r.highest() + ": no gap, no duplicate");
      } else {
        clean = false;
        for (long[] g : r.gaps()) {
          out.println("  GAP " + (g[0] == g[1] ? Long.toString(g[0]) : g[0] + ".." + g[1]));
        }
        for (long d : r.duplicates()) {
          out.println("  DUPLICATE " + d);
        }
      }
    }
    out.flush();
    return clean ? 0 : 1;
  }
}

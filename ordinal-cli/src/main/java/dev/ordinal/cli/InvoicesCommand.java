package dev.ordinal.cli;

import static dev.ordinal.billing.db.Tables.INVOICE;

import dev.ordinal.billing.BillingSettings;
import dev.ordinal.billing.HttpEInvoiceIntegrator;
import dev.ordinal.billing.HttpPaymentGateway;
import dev.ordinal.billing.InvoiceIssuerConfig;
import dev.ordinal.billing.InvoiceOperations;
import dev.ordinal.billing.InvoiceReconciliation;
import dev.ordinal.billing.InvoiceSeries;
import dev.ordinal.billing.InvoiceStatus;
import dev.ordinal.billing.PaymentReconciliation;
import dev.ordinal.billing.db.tables.records.InvoiceRecord;
import dev.ordinal.messaging.ConfigurationException;
import dev.ordinal.messaging.RefusedException;
import dev.ordinal.runtime.settings.Setting;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.PrintWriter;
import java.net.URI;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(
    name = "invoices",
    mixinStandardHelpOptions = true,
    description = {
      "Operator commands for invoices and series: list the invoices the integrator rejected"
          + " (ERROR, number kept), send one again after a fix or void it with a reason (its"
          + " number stays accounted for), show or set each series' cancel rule, and reconcile"
          + " with the integrator and the gateway what they hold that billing says they should"
          + " not.",
      "",
      "Database: ORDINAL_DB_URL / ORDINAL_DB_USER / ORDINAL_DB_PASSWORD and"
          + " ORDINAL_KAFKA_BOOTSTRAP name the servers billing uses (never the embedded stack).",
      "Exit status: 0 done; 1 a failure on the way; 2 bad input or a refusal (nothing changed)."
    },
    subcommands = {
      InvoicesCommand.Errors.class,
      InvoicesCommand.Resend.class,
      InvoicesCommand.Void.class,
      InvoicesCommand.Series.class,
      InvoicesCommand.SetCancelRule.class,
      InvoicesCommand.Reconcile.class
    })
final class InvoicesCommand extends CommandGroup {

  /** Where billing's tables are. */
  static final class Target {
    @Option(
        names = "--schema",
        defaultValue = "billing",
        description = "Billing's schema (default ${DEFAULT-VALUE}).")
    String schema;

    // visible for testing
    Map<String, String> env = System.getenv();

    /** Runs {@code body} on billing's database; failures become one sentence and a status. */
    int run(CommandLine cli, String command, Body body) {
      return ExternalServers.run(
          cli,
          command,
          env,
          (servers, out) ->
              body.apply(DSL.using(servers.database(schema, true), SQLDialect.POSTGRES), out));
    }
  }

  /** A command's work on billing's database. */
  interface Body {
    int apply(DSLContext dsl, PrintWriter out) throws Exception;
  }

  /**
   * A subcommand: its input checked, then its work on billing's database ({@link Target#run}) as
   * {@code invoices <name>}.
   */
  abstract static class Subcommand implements Callable<Integer>, Body {
    @Mixin Target target;

    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
      check();
      return target.run(spec.commandLine(), "invoices " + spec.name(), this);
    }

    /** Refuses bad input (a {@link CommandLine.ParameterException}) before any server is asked. */
    void check() {}
  }

  /**
   * A subcommand that changes one invoice in ERROR, named by its row id: it says what became of the
   * invoice, or refuses saying why not (it is not in ERROR, or there is none).
   */
  abstract static class OneInvoice extends Subcommand {
    @Parameters(paramLabel = "ID", description = "The invoice's row id (see 'invoices errors').")
    long id;

    /** Changes the invoice; false when it is not in ERROR. */
    abstract boolean change(InvoiceOperations invoices);

    /** What became of the invoice, after "Invoice <id>". */
    abstract String outcome();

    @Override
    public int apply(DSLContext dsl, PrintWriter out) {
      if (!change(new InvoiceOperations(dsl))) {
        throw new RefusedException(notInError(dsl, id));
      }
      out.println("Invoice " + id + outcome());
      out.flush();
      return 0;
    }
  }

  @Command(
      name = "errors",
      mixinStandardHelpOptions = true,
      description = "One line per invoice in ERROR: row id, series/number, order, why.")
  static final class Errors extends Subcommand {
    @Option(names = "--series", description = "Only this series (default: all).")
    String series;

    @Override
    public int apply(DSLContext dsl, PrintWriter out) {
      List<InvoiceRecord> errors =
          dsl.selectFrom(INVOICE)
              .where(INVOICE.STATUS.eq(InvoiceStatus.ERROR.name()))
              .and(series == null ? DSL.noCondition() : INVOICE.SERIES.eq(series))
              .orderBy(INVOICE.SERIES, INVOICE.NUMBER)
              .fetch();
      out.printf("%d invoice(s) in ERROR%n", errors.size());
      for (InvoiceRecord inv : errors) {
        out.printf(
            "  id %-8d %s/%-8d order %s%s  %s%n",
            inv.getId(),
            inv.getSeries(),
            inv.getNumber(),
            inv.getOrderId(),
            inv.getCancelledAt() == null ? "" : " (order cancelled)",
            inv.getLastError() == null ? "-" : inv.getLastError());
      }
      out.flush();
      return 0;
    }
  }

  @Command(
      name = "resend",
      mixinStandardHelpOptions = true,
      description =
          "Sends an invoice in ERROR again with the same number (ERROR -> SENDING); a running"
              + " billing issuer picks it up.")
  static final class Resend extends OneInvoice {
    @Override
    boolean change(InvoiceOperations invoices) {
      return invoices.resend(id);
    }

    @Override
    String outcome() {
      return " will be sent again with its number.";
    }
  }

  @Command(
      name = "void",
      mixinStandardHelpOptions = true,
      description =
          "Voids an invoice in ERROR with a reason (ERROR -> VOIDED); its number stays taken and"
              + " accounted for.")
  static final class Void extends OneInvoice {
    @Option(
        names = "--reason",
        required = true,
        description = "Why, kept with the voided number (required).")
    String reason;

    @Override
    void check() {
      if (reason.isBlank()) {
        throw new CommandLine.ParameterException(
            spec.commandLine(), "--reason must say why the number is voided.");
      }
    }

    @Override
    boolean change(InvoiceOperations invoices) {
      return invoices.voidInvoice(id, reason);
    }

    @Override
    String outcome() {
      return " voided; its number stays accounted for.";
    }
  }

  @Command(
      name = "series",
      mixinStandardHelpOptions = true,
      description = "Each series with its next number and its cancel rule.")
  static final class Series extends Subcommand {
    @Override
    public int apply(DSLContext dsl, PrintWriter out) {
      List<InvoiceSeries.Settings> all = new InvoiceSeries(dsl).list();
      out.printf("%d series%n", all.size());
      for (InvoiceSeries.Settings s : all) {
        out.printf(
            "  %-16s next number %-8d cancel rule %s%n",
            s.series(), s.nextNumber(), s.cancelRule());
      }
      out.flush();
      return 0;
    }
  }

  @Command(
      name = "set-cancel-rule",
      mixinStandardHelpOptions = true,
      description = {
        "Sets what an order's cancellation does to an invoice whose number is already reserved,"
            + " as the law of the series requires. VOID (default): a number the integrator does"
            + " not hold is voided with the reason. ISSUE_THEN_CANCEL: the number is issued anyway"
            + " and the invoice marked cancelled (a credit note follows).",
        "Under both rules a draft without a number is cancelled without consuming one, and an"
            + " issued invoice stays issued, marked cancelled. Creates the series if it has no"
            + " number yet."
      })
  static final class SetCancelRule extends Subcommand {
    @Parameters(index = "0", paramLabel = "SERIES", description = "The series, e.g. F2026-A.")
    String series;

    @Parameters(index = "1", paramLabel = "RULE", description = "VOID or ISSUE_THEN_CANCEL.")
    InvoiceSeries.CancelRule rule;

    @Override
    void check() {
      if (series.isBlank() || series.length() > InvoiceSeries.MAX_NAME_LENGTH) {
        throw new CommandLine.ParameterException(
            spec.commandLine(),
            "SERIES must be 1 to "
                + InvoiceSeries.MAX_NAME_LENGTH
                + " characters, not '"
                + series
                + "'.");
      }
    }

    @Override
    public int apply(DSLContext dsl, PrintWriter out) {
      new InvoiceSeries(dsl).setCancelRule(series, rule);
      out.println("Series " + series + ": cancel rule " + rule + ".");
      out.flush();
      return 0;
    }
  }

  @Command(
      name = "reconcile",
      mixinStandardHelpOptions = true,
      modelTransformer = InvoicesCommand.Reconcile.Options.class,
      description = {
        "Asks the integrator about every invoice number it may hold that is not ISSUED here for"
            + " the same invoice — every number VOIDED or in ERROR here, the numbers past each"
            + " series' counter until 100 in a row are free there (or numbered here for the"
            + " invoice it holds), and every invoice not issued here by"
            + " its invoice id — and lists each one it holds: an invoice the tax authority has"
            + " although billing says it was not issued (a submission stored after billing had"
            + " given up on it, or one made before billing's database was restored). Each one is"
            + " recorded and listed again by later runs, together with those the issuer recorded"
            + " when such an accept reached it; an operator settles them (a credit note, or a"
            + " correction at the integrator).",
        "Then asks the gateway, by each order's idempotency key, about every payment CANCELLED"
            + " (never charged) or FAILED here and lists each charge it holds; a cancelled order's"
            + " charge is recorded as captured, so billing refunds it.",
        "Never submits, charges or refunds itself. Running billing instances do the same every"
            + " --reconcile-interval, asking about each VOIDED number and settled payment again at"
            + " growing horizons (the in-flight window, twice it, four times ... up to a day).",
        "Exit status: 0 they hold none of them; 3 they hold at least one (listed); 1 a failure on"
            + " the way; 2 bad input."
      })
  static final class Reconcile extends Subcommand {
    /**
     * The integrator and the gateway billing uses: its {@code --integrator-url}, {@code
     * --gateway-url}.
     */
    static final List<Setting<?>> SETTINGS =
        List.of(BillingSettings.INTEGRATOR_URL, BillingSettings.GATEWAY_URL);

    static final class Options extends SettingOptions {
      Options() {
        super(SETTINGS);
      }
    }

    private URI integrator;
    private URI gateway;

    @Override
    void check() {
      integrator =
          SettingOptions.checked(
              spec,
              () ->
                  ConfigurationException.check(
                      BillingSettings.INTEGRATOR_URL,
                      SettingOptions.values(spec, SETTINGS).get(BillingSettings.INTEGRATOR_URL)));
      gateway =
          SettingOptions.checked(
              spec,
              () ->
                  ConfigurationException.check(
                      BillingSettings.GATEWAY_URL,
                      SettingOptions.values(spec, SETTINGS).get(BillingSettings.GATEWAY_URL)));
    }

    @Override
    public int apply(DSLContext dsl, PrintWriter out) {
      InvoiceReconciliation.Report r =
          new InvoiceReconciliation(
                  dsl,
                  new HttpEInvoiceIntegrator(integrator, HttpEInvoiceIntegrator.DEFAULT_TIMEOUT),
                  InvoiceIssuerConfig.defaults().inFlightWindow(),
                  new SimpleMeterRegistry())
              .run(true);
      out.printf(
          "%d VOIDED or ERROR number(s) checked: %d not held by the integrator, %d"
              + " unanswered%n",
          r.checked(), r.absent(), r.unanswered());
      out.printf(
          "%d number(s) past the series' counters and %d invoice(s) by id asked about%n",
          r.scanned(), r.askedById());
      out.printf("%d held by the integrator although not issued here%n", r.discrepancies().size());
      for (InvoiceReconciliation.Discrepancy d : r.discrepancies()) {
        out.printf(
            "  id %-8s %s/%-8d %s here, held as invoice %s (found %s)%n",
            d.invoiceRowId() == null ? "-" : d.invoiceRowId().toString(),
            d.series(),
            d.number(),
            d.localStatus(),
            d.heldAs(),
            d.foundAt());
      }
      HttpPaymentGateway payments =
          new HttpPaymentGateway(gateway, HttpPaymentGateway.DEFAULT_TIMEOUT);
      PaymentReconciliation.Report p =
          new PaymentReconciliation(
                  dsl,
                  payments,
                  BillingSettings.DEFAULT_PAYMENT_LEASE.plus(HttpPaymentGateway.DEFAULT_TIMEOUT),
                  new SimpleMeterRegistry())
              .run(true);
      out.printf(
          "%d CANCELLED or FAILED payment(s) checked: %d without a charge at the gateway, %d"
              + " unanswered%n",
          p.checked(), p.absent(), p.unanswered());
      out.printf("%d charged by the gateway although not charged here%n", p.discrepancies().size());
      for (PaymentReconciliation.Discrepancy d : p.discrepancies()) {
        out.printf(
            "  order %s %s here when found, %s now, charge %s (found %s)%n",
            d.orderId(), d.localStatus(), d.statusNow(), d.chargeId(), d.foundAt());
      }
      out.flush();
      boolean clean = r.clean() && p.clean();
      if (clean && r.unanswered() + p.unanswered() > 0) {
        throw new IllegalStateException(
            (r.unanswered() + p.unanswered())
                + " look-up(s) failed: the integrator at "
                + integrator
                + " or the gateway at "
                + gateway
                + " did not answer; run again once they do.");
      }
      return clean ? 0 : 3;
    }
  }

  private static String notInError(DSLContext dsl, long id) {
    String status =
        dsl.select(INVOICE.STATUS).from(INVOICE).where(INVOICE.ID.eq(id)).fetchOne(INVOICE.STATUS);
    return status == null
        ? "No invoice has id " + id + "; 'invoices errors' lists the ones in ERROR."
        : "Invoice "
            + id
            + " is "
            + status
            + ", not ERROR; only an invoice in ERROR can be resent or voided.";
  }
}

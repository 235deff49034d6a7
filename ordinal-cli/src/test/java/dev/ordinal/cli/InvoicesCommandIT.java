package dev.ordinal.cli;

import static dev.ordinal.billing.db.Tables.INVOICE;
import static dev.ordinal.billing.db.Tables.INVOICE_SERIES;
import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.ordinal.billing.BillingService;
import dev.ordinal.billing.EInvoiceIntegrator;
import dev.ordinal.billing.HttpEInvoiceIntegrator;
import dev.ordinal.lab.sim.IntegratorSimulator;
import dev.ordinal.messaging.db.DatabaseSettings;
import dev.ordinal.testkit.OrdinalStackExtension;
import dev.ordinal.testkit.TestNamespace;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import picocli.CommandLine;

/**
 * {@code ./ordinal invoices}: an operator resends or voids a rejected invoice (its number kept) and
 * sets a series' cancel rule; bad input is one sentence with status 2 and changes nothing.
 */
@ExtendWith(OrdinalStackExtension.class)
class InvoicesCommandIT extends CommandTest {
  static HikariDataSource pool;
  static DSLContext dsl;
  static String schema;
  static Map<String, String> env;

  /** Two connections named {@code name} on schema {@code s} of the stack's PostgreSQL. */
  private static HikariDataSource poolOn(TestNamespace ns, String s, String name) {
    return new DatabaseSettings(ns.stack().jdbcUrl(), ns.stack().dbUser(), ns.stack().dbPassword())
        .withSchema(s)
        .pool(name, 2);
  }

  @BeforeAll
  static void migrate(TestNamespace ns) {
    schema = ns.schema("ops");
    pool = poolOn(ns, schema, "invoices-it");
    BillingService.migrate(pool, schema);
    dsl = DSL.using(pool, SQLDialect.POSTGRES);
    env = ns.serverEnvironment();
  }

  @AfterAll
  static void close() {
    pool.close();
  }

  private int invoices(Map<String, String> environment, String... args) {
    return invoicesIn(schema, environment, args);
  }

  private int invoicesIn(String inSchema, Map<String, String> environment, String... args) {
    clear();
    CommandLine cli = new CommandLine(new InvoicesCommand());
    for (CommandLine sub : cli.getSubcommands().values()) {
      ((InvoicesCommand.Target) sub.getCommandSpec().mixins().get("target").userObject()).env =
          environment;
    }
    printingHere(cli);
    String[] withSchema = new String[args.length + 2];
    System.arraycopy(args, 0, withSchema, 0, args.length);
    withSchema[args.length] = "--schema";
    withSchema[args.length + 1] = inSchema;
    return cli.execute(withSchema);
  }

  private static long rejected(String series, long number) {
    return numbered(dsl, series, number, "ERROR");
  }

  private static long numbered(DSLContext dsl, String series, long number, String status) {
    return dsl.insertInto(INVOICE)
        .set(INVOICE.ORDER_ID, UUID.randomUUID())
        .set(INVOICE.CUSTOMER_ID, "c")
        .set(INVOICE.CURRENCY, "EUR")
        .set(INVOICE.TOTAL, new BigDecimal("10.00"))
        .set(INVOICE.SERIES, series)
        .set(INVOICE.NUMBER, number)
        .set(INVOICE.STATUS, status)
        .set(INVOICE.LAST_ERROR, "422 tax id missing")
        .set(INVOICE.VOID_REASON, status.equals("VOIDED") ? "order cancelled: test" : null)
        .set(INVOICE.SOURCE_MESSAGE_ID, "m-" + UUID.randomUUID())
        .returning(INVOICE.ID)
        .fetchOne()
        .getId();
  }

  private static String status(long id) {
    return dsl.select(INVOICE.STATUS)
        .from(INVOICE)
        .where(INVOICE.ID.eq(id))
        .fetchOne(INVOICE.STATUS);
  }

  @Test
  void anOperatorResendsOneRejectedInvoiceAndVoidsAnotherWithAReason() {
    long first = rejected("OPS", 1);
    long second = rejected("OPS", 2);

    assertThat(invoices(env, "errors", "--series", "OPS")).isZero();
    assertThat(out.toString()).startsWith("2 invoice(s) in ERROR").contains("422 tax id missing");

    assertThat(invoices(env, "resend", Long.toString(first))).isZero();
    assertThat(status(first)).isEqualTo("SENDING");
    assertThat(invoices(env, "void", Long.toString(second), "--reason", "customer unknown"))
        .isZero();
    assertThat(status(second)).isEqualTo("VOIDED");
    assertThat(
            dsl.select(INVOICE.NUMBER, INVOICE.VOID_REASON)
                .from(INVOICE)
                .where(INVOICE.ID.eq(second))
                .fetchOne()
                .intoArray())
        .containsExactly(2L, "customer unknown");

    // a second void of the same invoice is refused and changes nothing
    assertThat(invoices(env, "void", Long.toString(second), "--reason", "again")).isEqualTo(2);
    assertThat(err.toString().strip())
        .isEqualTo(
            "ordinal: Invoice "
                + second
                + " is VOIDED, not ERROR; only an invoice in ERROR can be resent or voided.");
    assertThat(invoices(env, "errors", "--series", "OPS")).isZero();
    assertThat(out.toString()).startsWith("0 invoice(s) in ERROR");
  }

  @Test
  void badInputIsOneSentenceWithStatusTwoAndChangesNothing() {
    long id = rejected("BAD", 1);
    assertThat(invoices(env, "void", Long.toString(id), "--reason", " ")).isEqualTo(2);
    assertThat(err.toString()).contains("--reason must say why the number is voided.");
    assertThat(invoices(env, "resend", "999999999")).isEqualTo(2);
    assertThat(err.toString().strip())
        .isEqualTo(
            "ordinal: No invoice has id 999999999; 'invoices errors' lists the ones in ERROR.");
    assertThat(invoices(env, "set-cancel-rule", "BAD", "SOMETIMES")).isEqualTo(2);
    assertThat(invoices(env, "set-cancel-rule", "A-SERIES-NAME-TOO-LONG", "VOID")).isEqualTo(2);
    assertThat(err.toString()).contains("SERIES must be 1 to 16 characters");
    assertThat(invoices(Map.of(), "errors")).isEqualTo(2);
    assertThat(err.toString().strip())
        .isEqualTo(
            "ordinal: invoices errors needs a PostgreSQL server and a Kafka cluster: set"
                + " ORDINAL_DB_URL (with ORDINAL_DB_USER and ORDINAL_DB_PASSWORD) and"
                + " ORDINAL_KAFKA_BOOTSTRAP or db.url and kafka.bootstrap in the ORDINAL_CONFIG file"
                + " (./ordinal up starts a local stack to point it at).");
    assertThat(status(id)).isEqualTo("ERROR");
  }

  @Test
  void theCancelRuleOfASeriesIsSetAndShown() {
    assertThat(invoices(env, "set-cancel-rule", "LAW-IT", "ISSUE_THEN_CANCEL")).isZero();
    assertThat(invoices(env, "series")).isZero();
    assertThat(out.toString())
        .containsPattern("LAW-IT\\s+next number 1\\s+cancel rule ISSUE_THEN_CANCEL");
    assertThat(invoices(env, "set-cancel-rule", "LAW-IT", "VOID")).isZero();
    assertThat(invoices(env, "series")).isZero();
    assertThat(out.toString()).containsPattern("LAW-IT\\s+next number 1\\s+cancel rule VOID");
  }

  @Test
  void reconcileListsTheVoidedNumbersTheIntegratorHoldsWithStatusThree(TestNamespace ns)
      throws Exception {
    String own = ns.schema("reconcile");
    try (HikariDataSource p = poolOn(ns, own, "reconcile-it");
        IntegratorSimulator sim = IntegratorSimulator.instant()) {
      BillingService.migrate(p, own);
      DSLContext db = DSL.using(p, SQLDialect.POSTGRES);
      long voided = numbered(db, "REC", 1, "VOIDED");
      numbered(db, "REC", 2, "ERROR");
      db.insertInto(INVOICE_SERIES)
          .set(INVOICE_SERIES.SERIES, "REC")
          .set(INVOICE_SERIES.NEXT_NO, 3L)
          .execute();
      String url = sim.baseUri().toString();

      assertThat(invoicesIn(own, env, "reconcile", "--integrator-url", url)).isZero();
      assertThat(out.toString())
          .startsWith("2 VOIDED or ERROR number(s) checked: 2 not held by the integrator")
          .contains("0 held by the integrator although not issued here")
          .contains("0 CANCELLED or FAILED payment(s) checked")
          .contains("0 charged by the gateway although not charged here");

      UUID order =
          db.select(INVOICE.ORDER_ID)
              .from(INVOICE)
              .where(INVOICE.ID.eq(voided))
              .fetchOne(INVOICE.ORDER_ID);
      new HttpEInvoiceIntegrator(sim.baseUri(), Duration.ofSeconds(5))
          .submit(
              new EInvoiceIntegrator.Submission(
                  "REC", 1, UUID.randomUUID(), order, new BigDecimal("10.00"), "EUR"));
      // and a number past the series' counter, which no invoice here holds (a restored database)
      UUID stray = UUID.randomUUID();
      new HttpEInvoiceIntegrator(sim.baseUri(), Duration.ofSeconds(5))
          .submit(
              new EInvoiceIntegrator.Submission(
                  "REC", 4, stray, UUID.randomUUID(), new BigDecimal("10.00"), "EUR"));
      assertThat(invoicesIn(own, env, "reconcile", "--integrator-url", url)).isEqualTo(3);
      assertThat(out.toString())
          .contains("2 held by the integrator although not issued here")
          .containsPattern("id " + voided + "\\s+REC/1\\s+VOIDED here, held as invoice")
          .containsPattern("id -\\s+REC/4\\s+NONE here, held as invoice " + stray);

      assertThat(invoicesIn(own, env, "reconcile", "--integrator-url", "not a url")).isEqualTo(2);
      assertThat(err.toString().lines().findFirst().orElse(""))
          .isEqualTo("Invalid value for option '--integrator-url': 'not a url' is not a URL");
      assertThat(invoicesIn(own, env, "reconcile", "--integrator-url", "ftp://host")).isEqualTo(2);
      assertThat(err.toString().lines().findFirst().orElse(""))
          .isEqualTo(
              "--integrator-url must be an http(s) URL such as http://localhost:8091, not"
                  + " ftp://host");
    }
  }
}

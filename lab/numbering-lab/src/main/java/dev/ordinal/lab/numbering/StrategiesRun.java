package dev.ordinal.lab.numbering;

import com.zaxxer.hikari.HikariDataSource;
import dev.ordinal.billing.BillingService;
import dev.ordinal.lab.devstack.Stack;
import dev.ordinal.lab.devstack.StackConfig;
import dev.ordinal.lab.devstack.StackMode;
import dev.ordinal.lab.sim.IntegratorFaults;
import dev.ordinal.lab.sim.IntegratorSimulator;
import dev.ordinal.lab.sim.PaymentGatewayFaults;
import dev.ordinal.lab.sim.PaymentGatewaySimulator;
import dev.ordinal.messaging.Preflight;
import dev.ordinal.messaging.db.DatabaseSettings;
import java.io.PrintWriter;
import java.time.Clock;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;

/**
 * {@code ./ordinal demo --strategies}: the numbering lab on the embedded stack (or the configured
 * servers) and the two simulators, printed as a table. Its schema ({@value #SCHEMA}) is dropped and
 * migrated afresh on every run. Everything it starts is stopped on return and on Ctrl-C.
 */
public final class StrategiesRun {
  public static final String SCHEMA = "numbering_lab";

  private final StackConfig stackConfig;
  private final PrintWriter out;
  private final Deque<AutoCloseable> resources = new ArrayDeque<>();
  private final AtomicBoolean closed = new AtomicBoolean();

  public StrategiesRun(StackConfig stackConfig, PrintWriter out) {
    this.stackConfig = stackConfig;
    this.out = out;
  }

  /** True when the just-in-time row and the inbox row hold. */
  public boolean run() {
    Thread hook = new Thread(this::closeAll, "ordinal-strategies-shutdown");
    Runtime.getRuntime().addShutdownHook(hook);
    try {
      return runChecked();
    } finally {
      closeAll();
      try {
        Runtime.getRuntime().removeShutdownHook(hook);
      } catch (IllegalStateException shuttingDown) {
        // the hook is running already
      }
    }
  }

  private boolean runChecked() {
    out.print(
        (stackConfig.mode() == StackMode.EXTERNAL
                ? "Checking the external servers"
                : "Starting the " + stackConfig.mode().name().toLowerCase(Locale.ROOT) + " stack")
            + " ... ");
    out.flush();
    long t0 = System.nanoTime();
    Stack stack = keep(Stack.start(stackConfig));
    DatabaseSettings db = new DatabaseSettings(stack.jdbcUrl(), stack.dbUser(), stack.dbPassword());
    Preflight.checkPostgres(db, false);
    try (HikariDataSource admin = db.pool("lab-admin", 1)) {
      DSL.using(admin, SQLDialect.POSTGRES).dropSchemaIfExists(SCHEMA).cascade().execute();
    }
    LabConfig config = LabConfig.defaults();
    HikariDataSource pool = keep(db.withSchema(SCHEMA).pool("lab", config.workers() + 12));
    BillingService.migrate(pool, SCHEMA);
    IntegratorSimulator integrator =
        keep(new IntegratorSimulator(0, IntegratorFaults.defaults()).start());
    PaymentGatewaySimulator gateway =
        keep(new PaymentGatewaySimulator(0, PaymentGatewayFaults.defaults()).start());
    out.printf(
        "ok (%d ms; schema %s, simulators on ports %d and %d)%n",
        (System.nanoTime() - t0) / 1_000_000, SCHEMA, integrator.port(), gateway.port());
    out.println("Running the numbering lab (about 20 s) ...");
    out.flush();

    LabResult result =
        new NumberingLab(
                DSL.using(pool, SQLDialect.POSTGRES),
                integrator.baseUri(),
                gateway.baseUri(),
                Clock.systemUTC())
            .run(config);
    out.println();
    out.print(result.table());
    out.println();
    boolean ok = result.projectWayHolds();
    out.println(
        ok
            ? "OK: just-in-time reservation sent every invoice with no duplicate and no gap at full"
                + " concurrency, and the inbox made one invoice and one charge per order."
            : "FAILED: the just-in-time row or the inbox row does not hold; see the figures above.");
    out.flush();
    return ok;
  }

  private <T extends AutoCloseable> T keep(T resource) {
    resources.push(resource);
    return resource;
  }

  private void closeAll() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    while (!resources.isEmpty()) {
      try {
        resources.pop().close();
      } catch (Exception e) {
        out.println("warning: stopping a part of the lab failed: " + e.getMessage());
      }
    }
    out.flush();
  }
}

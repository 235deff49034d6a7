package dev.ordinal.lab.numbering;

import static dev.ordinal.lab.numbering.LabTables.ID;
import static dev.ordinal.lab.numbering.LabTables.NEXT_NO;
import static dev.ordinal.lab.numbering.LabTables.NUMBER;
import static dev.ordinal.lab.numbering.LabTables.SERIES;
import static dev.ordinal.lab.numbering.LabTables.STATUS;

import dev.ordinal.billing.EInvoiceIntegrator;
import org.jooq.DSLContext;

/**
 * The whole thing in one transaction: lock the series' counter row ({@code FOR UPDATE}), take the
 * number, call the integrator while holding the lock, then store and commit; any failure rolls the
 * number back. Unique and gapless, but it breaks invariant 7 on purpose: every worker of the series
 * waits on that row lock for the integrator's latency, so W workers send one at a time.
 */
final class CallInTransactionStrategy extends CounterTableStrategy {

  CallInTransactionStrategy(DSLContext dsl, String series) {
    super(dsl, series, LabResult.Strategy.CALL_IN_TRANSACTION);
  }

  /** Rolls the transaction back and carries the integrator's answer out of it. */
  private static final class RolledBack extends RuntimeException {
    final Answer answer;

    RolledBack(Answer answer) {
      super(answer.name(), null, false, false);
      this.answer = answer;
    }
  }

  @Override
  Step attempt(EInvoiceIntegrator integrator, Open invoice) {
    try {
      dsl.transaction(
          c -> {
            DSLContext tx = c.dsl();
            long number =
                tx.select(NEXT_NO)
                    .from(counter)
                    .where(SERIES.eq(series))
                    .forUpdate()
                    .fetchOne()
                    .value1();
            Answer answer = submit(integrator, invoice, number); // the row stays locked meanwhile
            if (answer != Answer.ACCEPTED) {
              throw new RolledBack(answer);
            }
            tx.update(counter).set(NEXT_NO, number + 1).where(SERIES.eq(series)).execute();
            tx.update(invoices)
                .set(NUMBER, number)
                .set(STATUS, LabTables.ISSUED)
                .where(ID.eq(invoice.id()))
                .execute();
          });
      return Step.DONE;
    } catch (RolledBack e) {
      if (e.answer == Answer.REJECTED) {
        markRejected(invoice.id()); // the number went back with the rollback: no gap
        return Step.DONE;
      }
      return Step.RETRY;
    }
  }
}

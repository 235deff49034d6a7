package dev.ordinal.lab.numbering;

import static dev.ordinal.lab.numbering.LabTables.NEXT_NO;
import static dev.ordinal.lab.numbering.LabTables.SERIES;

import dev.ordinal.billing.EInvoiceIntegrator;
import org.jooq.DSLContext;

/**
 * Numbering at enqueue time: the number is taken from the series' counter row in the transaction
 * that creates the invoice. Unique, but every invoice that is created and never issued keeps a
 * number nobody will send: an order cancelled before sending, an invoice the integrator rejects (a
 * corrected invoice is a new invoice with a new number). Each is a gap.
 */
final class EnqueueTimeStrategy extends CounterTableStrategy {

  EnqueueTimeStrategy(DSLContext dsl, String series) {
    super(dsl, series, LabResult.Strategy.ENQUEUE_TIME);
  }

  @Override
  Long numberAtCreation(DSLContext tx) {
    return tx.update(counter)
            .set(NEXT_NO, NEXT_NO.plus(1))
            .where(SERIES.eq(series))
            .returning(NEXT_NO)
            .fetchOne()
            .get(NEXT_NO)
        - 1;
  }

  @Override
  Step attempt(EInvoiceIntegrator integrator, Open invoice) {
    // the number was taken for this invoice only, so a 409 cannot happen; were it to, the
    // number would be lost like a rejected one
    return sendUnder(integrator, invoice, invoice.number(), false);
  }

  @Override
  String gapNote(int rejected, int cancelled, long gaps) {
    return "numbers taken and never issued: "
        + cancelled
        + " of cancelled orders + "
        + rejected
        + " of rejected invoices";
  }
}

package dev.ordinal.lab.numbering;

import dev.ordinal.billing.EInvoiceIntegrator;

/**
 * One way of giving invoices their legal numbers. The lab runs each on the same {@link Workload},
 * in a series of its own, against the same integrator, and measures only {@link #send}.
 */
interface NumberingStrategy {
  LabResult.Strategy kind();

  /** The series it numbers, its own. */
  String series();

  /**
   * Creates the workload's invoices (numbering them, if this strategy numbers at creation), then
   * cancels those the workload cancels before sending. Not timed.
   */
  void enqueue(Workload workload);

  /** Sends every invoice still to be sent with {@code workers} workers; returns when none is. */
  void send(EInvoiceIntegrator integrator, int workers);

  /** The series afterwards: what was issued, rejected, cancelled, and every missing number. */
  SeriesFigures audit();

  /**
   * A series after a run.
   *
   * @param highest the highest number handed out
   * @param gaps numbers in 1..highest that no issued invoice holds and nothing else accounts for
   * @param duplicateNumbers numbers that two issued invoices hold
   * @param note how the gaps come about, for the reader of the table
   */
  record SeriesFigures(
      int issued,
      int rejected,
      int cancelled,
      int unfinished,
      long highest,
      long gaps,
      long duplicateNumbers,
      String note) {}
}

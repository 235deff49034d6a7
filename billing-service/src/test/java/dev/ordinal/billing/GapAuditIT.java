package dev.ordinal.billing;

import static dev.ordinal.billing.db.Tables.INVOICE;
import static dev.ordinal.billing.db.Tables.INVOICE_SERIES;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ordinal.testkit.OrdinalStackExtension;
import dev.ordinal.testkit.TestNamespace;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The audit finds a number no invoice holds, inside the series and past its highest number. */
@ExtendWith(OrdinalStackExtension.class)
class GapAuditIT {

  @Test
  void aMissingNumberAndNumbersTheCounterHandedOutButNoInvoiceHoldsAreGaps(TestNamespace ns) {
    try (BillingFixture fx = new BillingFixture(ns, "audit")) {
      InvoiceNumbering numbering = new InvoiceNumbering(fx.dsl);
      List<Long> drafts = fx.drafts("AUD", 5);
      drafts.forEach(id -> assertThat(numbering.reserve(id)).isPresent());
      assertThat(new GapAudit(fx.dsl).run("AUD").get(0).clean()).isTrue();

      // number 2 disappears, and the counter moves past 5 without an invoice (8 next)
      fx.dsl.deleteFrom(INVOICE).where(INVOICE.ID.eq(drafts.get(1))).execute();
      fx.dsl
          .update(INVOICE_SERIES)
          .set(INVOICE_SERIES.NEXT_NO, 8L)
          .where(INVOICE_SERIES.SERIES.eq("AUD"))
          .execute();

      GapAudit.SeriesReport report = new GapAudit(fx.dsl).run("AUD").get(0);
      assertThat(report.clean()).isFalse();
      assertThat(report.highest()).isEqualTo(5);
      assertThat(report.gaps()).containsExactly(new long[] {2, 2}, new long[] {6, 7});
      assertThat(report.missingNumbers()).isEqualTo(3);
      assertThat(report.duplicates()).isEmpty();
    }
  }
}

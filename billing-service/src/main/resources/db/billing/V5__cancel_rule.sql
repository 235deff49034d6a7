-- What a cancellation does to an invoice whose number is already reserved is a matter of law,
-- so it is a setting of the series:
--   VOID              a reserved number that was not issued is voided with the reason (it stays
--                     accounted for); what the integrator already has stays issued.
--   ISSUE_THEN_CANCEL a reserved number is always issued (an invoice in ERROR waits for an
--                     operator as usual); the invoice is then marked cancelled and a credit note
--                     is the legal way out.
-- Under both rules a draft without a number becomes CANCELLED and consumes no number, and an
-- issued invoice stays ISSUED with cancelled_at set.
alter table invoice_series add column cancel_rule varchar(20) not null default 'VOID'
  constraint invoice_series_cancel_rule_check check (cancel_rule in ('VOID', 'ISSUE_THEN_CANCEL'));
alter table invoice add column cancelled_at timestamptz;
alter table invoice add column cancel_reason varchar(500);

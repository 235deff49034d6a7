-- Reconciliation asks again, at growing horizons, and about every number the integrator may hold.
--
-- A VOIDED number (and a number in ERROR) is looked up at sent_at + window, + 2 x window,
-- + 4 x window ... up to the reconciliation's cap, not once: an integrator may store a submission
-- long after billing gave up on it (a late accept). reconcile_checks counts the look-ups that found
-- nothing, next_reconcile_at is when the next one is due (database clock), and reconciled_at is set
-- once the horizon has passed the cap. Numbers confirmed absent by the one look-up of V7 are asked
-- about again once, under the new rule.
alter table invoice add column reconcile_checks integer not null default 0;
alter table invoice add column next_reconcile_at timestamptz;
update invoice set reconciled_at = null where status = 'VOIDED';
create index invoice_reconcile_idx on invoice (next_reconcile_at)
  where status in ('VOIDED', 'ERROR') and reconciled_at is null;

-- A discrepancy is a number the integrator holds that is not ISSUED here for that invoice: found
-- for a VOIDED or ERROR row, for a number past the series' counter (no row holds it: a restored
-- database), or by asking the integrator for an invoice id. Keyed by the number; invoice_id is the
-- row holding that number here, if any.
alter table invoice_discrepancy drop constraint invoice_discrepancy_pkey;
alter table invoice_discrepancy alter column invoice_id drop not null;
alter table invoice_discrepancy add constraint invoice_discrepancy_pkey primary key (series, number);

-- The same for payments: a payment settled as not charged (CANCELLED) or FAILED is asked about by
-- idempotency key at growing horizons after coalesce(charge_sent_at, updated_at); a charge the
-- gateway captured late is recorded here (and, for a cancelled order, refunded by the collector).
alter table payment add column reconcile_checks integer not null default 0;
alter table payment add column next_reconcile_at timestamptz;
alter table payment add column reconciled_at timestamptz;
create index payment_reconcile_idx on payment (next_reconcile_at)
  where status in ('CANCELLED', 'FAILED') and reconciled_at is null;

create table payment_discrepancy (
  order_id     uuid         primary key,
  local_status varchar(16)  not null,
  charge_id    varchar(64)  not null,
  found_at     timestamptz  not null default now()
);

-- When the latest submission of an invoice to the integrator began, on the database's clock.
-- A number is voided only after a look-up that began once that submission can no longer land
-- (sent_at + the issuer's in-flight window: lease + client timeout); before that, "not found"
-- may only mean "not yet" (a late accept).
alter table invoice add column sent_at timestamptz;
update invoice set sent_at = reserved_at where number is not null;

-- Numbers the integrator holds although they are VOIDED or in ERROR here, as found by the
-- reconciliation (./ordinal invoices reconcile, and the periodic job): each needs an operator
-- (a credit note, or a correction at the integrator). One row per invoice; found_at is the first
-- time it was seen.
create table invoice_discrepancy (
  invoice_id   bigint       primary key references invoice (id),
  series       varchar(16)  not null,
  number       bigint       not null,
  local_status varchar(16)  not null,
  held_as      uuid         not null,
  found_at     timestamptz  not null default now()
);

-- VOIDED and ERROR numbers the reconciliation has confirmed absent from the integrator after
-- their in-flight window; the periodic job asks only about the others.
alter table invoice add column reconciled_at timestamptz;

-- Just-in-time gapless numbering. A draft invoice has no number; a short transaction reserves
-- the next number of its series right before the integrator call and commits (status SENDING).
-- Every reserved number stays accounted for: ISSUED, ERROR (kept for an operator) or VOIDED
-- (with a reason). An order cancelled before its reservation is CANCELLED without a number.
alter table invoice add column series varchar(16) not null default 'DEFAULT';
alter table invoice add column number bigint;
alter table invoice add column attempts integer not null default 0;
-- when the invoice may be worked on again: a claim sets it to now + lease, so a worker that
-- dies mid-call leaves the invoice to be picked up (and looked up by number) once it passes
alter table invoice add column next_attempt_at timestamptz;
alter table invoice add column reserved_at timestamptz;
alter table invoice add column issued_at timestamptz;
alter table invoice add column last_error varchar(500);
alter table invoice add column void_reason varchar(500);
alter table invoice alter column status set default 'DRAFT';
update invoice set status = 'DRAFT' where status = 'PENDING';
alter table invoice add constraint invoice_status_check
  check (status in ('DRAFT', 'SENDING', 'ISSUED', 'ERROR', 'VOIDED', 'CANCELLED'));
alter table invoice add constraint invoice_series_number_key unique (series, number);
alter table invoice add constraint invoice_number_when_reserved
  check (number is not null or status in ('DRAFT', 'CANCELLED'));
alter table invoice add constraint invoice_void_has_reason
  check (status <> 'VOIDED' or void_reason is not null);

-- the issuer's work queue: drafts and invoices whose last attempt did not end
create index invoice_open_idx on invoice (next_attempt_at, created_at)
  where status in ('DRAFT', 'SENDING');

-- one counter row per series: contention is per series
create table invoice_series (
  series  varchar(16) primary key,
  next_no bigint      not null default 1 check (next_no >= 1)
);

-- one charge per order; the gateway is called with the order id as idempotency key
create table payment (
  order_id        uuid          primary key,
  amount          numeric(14,2) not null,
  currency        char(3)       not null,
  status          varchar(16)   not null default 'PENDING'
    check (status in ('PENDING', 'CAPTURED', 'REFUNDED', 'FAILED')),
  charge_id       varchar(64),
  attempts        integer       not null default 0,
  next_attempt_at timestamptz,
  updated_at      timestamptz   not null default now()
);

create index payment_open_idx on payment (next_attempt_at) where status = 'PENDING';

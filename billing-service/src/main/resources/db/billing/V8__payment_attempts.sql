-- Payments learn what happened by asking, and give up on permanent answers after a bound.
--   charge_sent_at  when the latest charge request may have begun (the claim that sent it,
--                   database clock). A cancelled payment is settled as never charged only by a
--                   look-up by idempotency key that began after charge_sent_at + the collector's
--                   in-flight window (lease + client timeout); a charge is never made to find out.
--   declines        permanent answers to charges (402 declined, 4xx): FAILED after 3, with the
--                   reason in last_error.
--   refund_failures permanent answers to refunds: REFUND_FAILED after 3 (an operator's case).
alter table payment add column charge_sent_at timestamptz;
alter table payment add column declines integer not null default 0;
alter table payment add column refund_failures integer not null default 0;
alter table payment add column last_error varchar(500);
alter table payment drop constraint payment_status_check;
alter table payment add constraint payment_status_check
  check (status in ('PENDING', 'CAPTURED', 'REFUNDED', 'FAILED', 'CANCELLED', 'REFUND_FAILED'));

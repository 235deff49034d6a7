-- Refunds, in any order with the capture. A cancellation marks the payment; a payment marked
-- before it was captured is never charged (CANCELLED); one marked after is refunded (REFUNDED).
-- Transitions are guarded (WHERE status = ...), so nothing moves backwards.
alter table payment add column refund_requested boolean not null default false;
alter table payment drop constraint payment_status_check;
alter table payment add constraint payment_status_check
  check (status in ('PENDING', 'CAPTURED', 'REFUNDED', 'FAILED', 'CANCELLED'));
drop index payment_open_idx;
create index payment_open_idx on payment (next_attempt_at)
  where status = 'PENDING' or (status = 'CAPTURED' and refund_requested);

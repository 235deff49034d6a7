-- A cancellation is a recorded fact, whatever the order of arrival: an OrderCancelled applied
-- before its OrderPlaced (the polling relay keeps no order per key; a dead-lettered OrderPlaced
-- re-driven later; partitions added) leaves this row, and the OrderPlaced that comes after it
-- makes its invoice CANCELLED without a number and its payment CANCELLED, never charged.
create table order_cancellation (
  order_id          uuid          primary key,
  reason            varchar(500)  not null,
  cancelled_at      timestamptz   not null,
  source_message_id varchar(128)  not null
);

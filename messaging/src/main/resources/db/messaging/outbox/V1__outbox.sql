-- The transactional outbox, in the Debezium outbox-router convention. A service inserts one row
-- per event in the same transaction as its business change. The row id is the message id: made
-- once, when the row is written, and never regenerated on retry.
create table outbox (
  id             uuid         primary key,
  aggregate_type varchar(64)  not null,
  aggregate_id   varchar(128) not null,
  event_type     varchar(128) not null,
  payload        jsonb        not null,
  occurred_at    timestamptz  not null default now(),
  traceparent    varchar(55)
);

-- retention deletes published rows in small batches by time
create index outbox_occurred_at_idx on outbox (occurred_at);

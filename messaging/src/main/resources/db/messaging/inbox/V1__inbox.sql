-- The inbox: one row per (message id, consumer) applied. Inserted first, in the same transaction
-- as the consumer's business write; a unique violation on inbox_pkey means "already applied".
create table inbox (
  message_id    varchar(128) not null,
  consumer      varchar(128) not null,
  topic         varchar(249) not null,
  partition_no  integer      not null,
  record_offset bigint       not null,
  processed_at  timestamptz  not null default now(),
  constraint inbox_pkey primary key (message_id, consumer)
);

-- retention deletes old rows in small batches by time
create index inbox_processed_at_idx on inbox (processed_at);

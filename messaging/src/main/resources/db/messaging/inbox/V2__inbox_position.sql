-- Where the database says a consumer stands in each partition: the offset after the last batch
-- whose transactions had all committed, written after them. On assignment the consumer starts
-- from the lower of Kafka's committed offset and this one, so a database restored to an earlier
-- point (a point-in-time restore, an asynchronous replica promoted) applies again what it lost
-- instead of skipping it: the restored position is never ahead of what the restored database
-- applied, and the inbox drops what it applied after it.
create table inbox_position (
  consumer     varchar(128) not null,
  topic        varchar(249) not null,
  partition_no integer      not null,
  next_offset  bigint       not null,
  updated_at   timestamptz  not null default now(),
  constraint inbox_position_pkey primary key (consumer, topic, partition_no)
);

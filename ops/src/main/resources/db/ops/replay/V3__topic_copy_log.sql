-- One row per source partition of each executed ./ordinal topics copy: the range of offsets copied
-- (from_offset inclusive, to_offset exclusive), rows of one copy sharing its id.
create sequence topic_copy_id_seq;

create table topic_copy_log (
  id             bigint       not null,
  source_topic   varchar(249) not null,
  partition_no   integer      not null,
  from_offset    bigint       not null,
  to_offset      bigint       not null,
  target_topic   varchar(249) not null,
  -- the time range asked for, [from_time, to_time) of the records' timestamps
  from_time      timestamptz  not null,
  to_time        timestamptz  not null,
  copied_by      varchar(128) not null,
  copied_at      timestamptz  not null,
  constraint topic_copy_log_pkey primary key (id, partition_no)
);

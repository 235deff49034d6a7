-- What operators did to consumer groups and dead-letter topics (./ordinal replay, ./ordinal dlq).
-- Kept in the schema of the consumer's inbox, so a replay's report can be read next to the inbox.

-- One row per partition an executed replay moved; the rows of one replay share its id.
create sequence replay_id_seq;

create table replay_log (
  id             bigint       not null,
  consumer_group text         not null,
  topic          varchar(249) not null,
  partition_no   integer      not null,
  -- the group's committed offset before the replay, and the one it was set to
  from_offset    bigint       not null,
  to_offset      bigint       not null,
  -- how the target was asked for, e.g. "--to-datetime 2026-05-01T10:00:00Z"
  target         text         not null,
  executed_by    varchar(128) not null,
  executed_at    timestamptz  not null,
  -- the inbox consumer name whose rows tell duplicates from new effects; null when none
  consumer       varchar(128),
  constraint replay_log_pkey primary key (id, partition_no)
);

create index replay_log_executed_at_idx on replay_log (executed_at);

-- One row per dead letter produced back to its source topic.
create table dlq_redrive_log (
  id               bigserial    primary key,
  dlq_topic        varchar(249) not null,
  dlq_partition    integer      not null,
  dlq_offset       bigint       not null,
  message_id       text         not null,
  target_topic     varchar(249) not null,
  target_partition integer      not null,
  target_offset    bigint       not null,
  redriven_by      varchar(128) not null,
  redriven_at      timestamptz  not null
);

create index dlq_redrive_log_source_idx on dlq_redrive_log (dlq_topic, dlq_partition, dlq_offset);

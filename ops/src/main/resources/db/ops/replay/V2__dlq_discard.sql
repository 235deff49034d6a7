-- ./ordinal dlq discard: a dead letter marked as handled without being re-driven is one row of
-- dlq_redrive_log with action 'discard' and no target; redrive and list skip it from then on.
alter table dlq_redrive_log
  add column action varchar(16) not null default 'redrive',
  alter column message_id drop not null,
  alter column target_topic drop not null,
  alter column target_partition drop not null,
  alter column target_offset drop not null,
  add constraint dlq_redrive_log_action_check check (
    (action = 'redrive' and message_id is not null and target_topic is not null
       and target_partition is not null and target_offset is not null)
    or action = 'discard');

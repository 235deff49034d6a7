-- When a polling relay has published the row (null until then). The CDC relay reads the WAL, not
-- the table, and never sets it; the retention job's AFTER_DISPATCH mode deletes only rows that have
-- it, so an unpublished row is kept whatever its age.
alter table outbox add column dispatched_at timestamptz;

-- For the AFTER_DISPATCH retention delete ("dispatched_at is not null and dispatched_at < cutoff
-- order by occurred_at limit n"): it walks dispatched rows oldest first and stops after n. Partial,
-- so it holds only dispatched rows: empty (and free to maintain on insert) under the CDC relay,
-- and undispatched rows never enter it until the relay marks them.
create index outbox_dispatched_occurred_at_idx on outbox (occurred_at)
  where dispatched_at is not null;

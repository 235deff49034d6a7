-- Leases for the polling relay. A relay instance claims a batch of undispatched rows by writing its
-- id and an expiry into them in one short transaction, publishes them outside any transaction, then
-- sets dispatched_at and clears the lease. While leased_until is in the future no other instance
-- claims the row; once it has passed (the owner crashed or could not publish), anyone may. The CDC
-- relay reads the WAL and never touches these columns.
alter table outbox add column lease_owner varchar(64);
alter table outbox add column leased_until timestamptz;

-- For the claim ("dispatched_at is null and lease free order by occurred_at limit n for update skip
-- locked"): walks undispatched rows oldest first and stops after n, without reading the dispatched
-- history that AFTER_DISPATCH retention keeps. Partial, so a row leaves it when it is marked, and
-- under a polling relay it stays as small as the backlog. (Under the CDC relay with kept rows it
-- holds every row, like outbox_occurred_at_idx; with DELETE_ON_WRITE the table is empty.)
create index outbox_undispatched_occurred_at_idx on outbox (occurred_at)
  where dispatched_at is null;

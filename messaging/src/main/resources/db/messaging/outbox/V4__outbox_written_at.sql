-- When the database wrote each row: its transaction's start on the server's clock. occurred_at is
-- the writer host's clock, which may run behind; retention compares written_at with how far the
-- relays have published, and republish selects by it.
alter table outbox add column written_at timestamptz not null default now();
create index outbox_written_at_idx on outbox (written_at);

-- How far each CDC relay of this outbox has durably published: the commit time of the last
-- transaction whose position it stored after Kafka acknowledged its events (written by the relay
-- with that position). Retention in after-age mode deletes no row written later than a minute
-- before the least of them, and none while the table is empty (no relay has published yet). A
-- relay that is retired for good must have its row deleted, or retention stops at it.
create table outbox_relayed (
  relay           varchar(128) primary key,
  relayed_through timestamptz  not null,
  updated_at      timestamptz  not null default now()
);

-- Block reservation holds the series' counter only for the bump (issue 14): a block writes each of
-- its drafts once, with its block and its place in the block, and only then bumps the counter by
-- the block's size and records the range it took, in the same transaction.
--   number_block    one row per committed block: the series' numbers first_no .. first_no+size-1.
--   block_id,       on an invoice numbered by a block: its number is
--   block_offset      number_block.first_no + block_offset - 1 (offsets 1..size, one per draft).
--                   The number is copied into invoice.number by the issuer's claim, which writes
--                   the row anyway; every reader of a number that may not be claimed yet reads
--                   coalesce(number, first_no + block_offset - 1) (InvoiceNumbering.NUMBER).
-- A number that is not copied yet is therefore SENDING with a block: any other state holds it in
-- invoice.number, where the unique (series, number) key applies.
create sequence number_block_seq;

create table number_block (
  id          bigint      primary key,
  series      varchar(16) not null references invoice_series (series),
  first_no    bigint      not null check (first_no >= 1),
  size        integer     not null check (size >= 1),
  created_at  timestamptz not null default now(),
  constraint number_block_series_first_key unique (series, first_no)
);

alter table invoice add column block_id bigint;
alter table invoice add column block_offset integer;
alter table invoice add constraint invoice_block_whole
  check ((block_id is null) = (block_offset is null) and (block_offset is null or block_offset >= 1));
alter table invoice drop constraint invoice_number_when_reserved;
alter table invoice add constraint invoice_number_when_reserved
  check (number is not null or status in ('DRAFT', 'CANCELLED')
         or (status = 'SENDING' and block_id is not null));
-- Uniqueness of numbers needs no entry for an invoice without one: the key becomes a partial unique
-- index, so drafts (and a block's drafts until the claim copies their numbers) add no entry under
-- one (series, NULL) key, where every concurrent writer of a series would meet on the same page.
alter table invoice drop constraint invoice_series_number_key;
create unique index invoice_series_number_key on invoice (series, number) where number is not null;

-- Block reservation (V9) leaves the product: it was measured in the lab (bench numbering) and no
-- production path used it, while every reader of a number had to read
-- coalesce(number, first_no + block_offset - 1). Numbers are held by invoice.number alone again.

-- A number a block reserved and the issuer has not copied yet (SENDING, block_id set, number
-- null) is copied first, so no number is lost.
update invoice
   set number = number_block.first_no + invoice.block_offset - 1
  from number_block
 where number_block.id = invoice.block_id
   and invoice.number is null;

-- the plain model of V2: an invoice without a number is a draft or cancelled
alter table invoice drop constraint invoice_number_when_reserved;
alter table invoice add constraint invoice_number_when_reserved
  check (number is not null or status in ('DRAFT', 'CANCELLED'));

-- the unique (series, number) key a real constraint again, in place of V9's partial unique index
drop index invoice_series_number_key;
alter table invoice add constraint invoice_series_number_key unique (series, number);

alter table invoice drop constraint invoice_block_whole;
alter table invoice drop column block_id;
alter table invoice drop column block_offset;
drop table number_block;
drop sequence number_block_seq;

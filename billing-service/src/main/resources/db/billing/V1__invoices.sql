-- One invoice per order (natural key), whatever the number of deliveries or message ids.
create table invoice (
  id                bigint        generated always as identity primary key,
  order_id          uuid          not null,
  customer_id       varchar(64)   not null,
  currency          char(3)       not null,
  total             numeric(14,2) not null,
  status            varchar(16)   not null default 'PENDING',
  source_message_id varchar(128)  not null,
  created_at        timestamptz   not null default now(),
  constraint invoice_order_id_key unique (order_id)
);

-- What the HTTP API needs: channel and invoice series on the order, order lines, cancellation,
-- and idempotency keys (a retry with the same key returns the stored response).
alter table orders add column channel varchar(16) not null default 'interactive'
  constraint orders_channel_check check (channel in ('interactive', 'bulk'));
alter table orders add column invoice_series varchar(16);
alter table orders add column cancelled_at timestamptz;
alter table orders add constraint orders_status_check
  check (status in ('PLACED', 'CANCELLED', 'SHIPPED'));

create table order_line (
  order_id   uuid          not null references orders (id),
  line_no    integer       not null,
  sku        varchar(64)   not null,
  quantity   integer       not null check (quantity > 0),
  unit_price numeric(14,2) not null check (unit_price >= 0),
  primary key (order_id, line_no)
);

-- One row per Idempotency-Key, written in the same transaction as the order it created.
create table idempotency_key (
  idempotency_key varchar(255) primary key,
  request_hash    char(64)     not null,
  response_status integer,
  response_body   text,
  order_id        uuid,
  created_at      timestamptz  not null default now()
);

-- retention deletes old keys in small batches by time
create index idempotency_key_created_at_idx on idempotency_key (created_at);

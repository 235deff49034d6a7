create table orders (
  id          uuid          primary key,
  customer_id varchar(64)   not null,
  currency    char(3)       not null,
  total       numeric(14,2) not null check (total >= 0),
  status      varchar(16)   not null default 'PLACED',
  created_at  timestamptz   not null default now()
);

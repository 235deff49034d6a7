-- Orders and idempotency keys belong to the caller that placed them: the subject ('sub') of its
-- token, or 'anonymous' with --auth none. Rows written before get 'anonymous'; new rows always
-- name their owner (no default). A key is unique per owner, so two callers using the same
-- Idempotency-Key get two orders. The constraint keeps its name: the code recognises a reused key
-- by it.
alter table orders add column owner varchar(255) not null default 'anonymous';
alter table orders alter column owner drop default;

alter table idempotency_key add column owner varchar(255) not null default 'anonymous';
alter table idempotency_key alter column owner drop default;
alter table idempotency_key drop constraint idempotency_key_pkey;
alter table idempotency_key add constraint idempotency_key_pkey primary key (owner, idempotency_key);

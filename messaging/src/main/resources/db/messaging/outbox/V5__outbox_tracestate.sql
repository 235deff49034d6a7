-- The W3C tracestate beside the traceparent (vendors' own trace data, at most 512 characters as the
-- spec lets a propagator cut it to): the relays put it in a tracestate header. Null when the work
-- that wrote the row had none, and in every row written before this column existed.
alter table outbox add column tracestate varchar(512);

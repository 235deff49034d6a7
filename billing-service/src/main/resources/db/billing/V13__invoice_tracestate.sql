-- The W3C tracestate beside the invoice's traceparent (the OrderPlaced record's, which the inbox's
-- span carried on), so the issuer's span and the invoice's events carry it on too. Null when the
-- order had none, and for every invoice drafted before this column existed.
alter table invoice add column tracestate varchar(512);

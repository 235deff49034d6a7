-- The W3C traceparent of the work that drafted the invoice (the inbox's span of the OrderPlaced
-- record, itself a child of the order's POST /orders), so the issuer's span and the invoice's own
-- events (InvoiceIssued, InvoiceVoided) continue the order's trace. Null when the order had none.
alter table invoice add column traceparent varchar(55);

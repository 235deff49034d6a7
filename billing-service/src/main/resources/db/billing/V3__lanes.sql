-- Priority lanes: the issuer serves interactive invoices (a person is waiting) before bulk ones.
alter table invoice add column channel varchar(16) not null default 'interactive'
  constraint invoice_channel_check check (channel in ('interactive', 'bulk'));

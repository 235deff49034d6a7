-- longer than the statement timeout the test's pool gives every session (200 ms)
select pg_sleep(0.5);
create table slow_migration_done (id integer);

package dev.ordinal.relay;

/** How a relay process ({@link RelayApp}) reads the outbox: {@code --mode}. */
public enum RelayMode {
  /**
   * Reads the outbox's inserts from the WAL through a replication slot ({@link OutboxRelay}): needs
   * {@code wal_level=logical} and a role with REPLICATION; one instance streams, the others stand
   * by; commit order per outbox.
   */
  CDC,

  /**
   * Polls the outbox table with leases ({@link PollingRelay}): needs neither; any number of
   * instances share the work; order per aggregate; marks rows dispatched, so {@code
   * --outbox-retention after-dispatch} can delete them.
   */
  POLLING
}

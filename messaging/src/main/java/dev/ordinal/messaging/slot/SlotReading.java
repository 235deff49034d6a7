package dev.ordinal.messaging.slot;

import dev.ordinal.messaging.ConfigurationException;

/**
 * A logical replication slot (the CDC relay's) and the WAL it holds back: the lag of the first hop
 * of the pipe, beside the consumer lag of the last.
 *
 * @param slot the slot name
 * @param plugin its output plugin ({@code pgoutput} for the relay)
 * @param active whether a client streams from it now
 * @param restartLagBytes {@code pg_current_wal_lsn() - restart_lsn}: the WAL the server keeps for
 *     the slot, the figure that fills a disk; null when the slot has no restart position
 * @param confirmedLagBytes {@code pg_current_wal_lsn() - confirmed_flush_lsn}: WAL written that the
 *     slot's client has not confirmed; null when it never confirmed a position
 * @param confirmedFlushLsn how far the client confirmed, as PostgreSQL prints an LSN
 * @param walStatus {@code reserved}, {@code extended}, {@code unreserved} or {@code lost}
 * @param safeWalBytes WAL that may still be written before the slot is in danger of being lost
 *     ({@code safe_wal_size}); null when {@code max_slot_wal_keep_size} is -1 (no bound) or the
 *     slot is lost
 */
public record SlotReading(
    String slot,
    String plugin,
    boolean active,
    Long restartLagBytes,
    Long confirmedLagBytes,
    String confirmedFlushLsn,
    String walStatus,
    Long safeWalBytes) {
  /** The values {@code wal_status} takes (PostgreSQL 13 on). */
  public static final java.util.List<String> WAL_STATUSES =
      java.util.List.of("reserved", "extended", "unreserved", "lost");

  public SlotReading {
    if (slot == null || slot.isEmpty()) {
      throw new ConfigurationException("slot must be a replication slot name, not empty");
    }
  }
}

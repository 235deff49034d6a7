package dev.ordinal.ops.lag;

import dev.ordinal.messaging.ConfigurationException;

/**
 * A logical replication slot (the CDC relay's) and how much WAL it holds back: the lag of the first
 * hop of the pipe, beside the consumer lag of the last.
 *
 * @param slot the slot name
 * @param plugin its output plugin ({@code pgoutput} for the relay)
 * @param active whether a client streams from it now
 * @param lagBytes {@code pg_current_wal_lsn() - confirmed_flush_lsn}: WAL written that the slot's
 *     client has not confirmed; null when the slot never confirmed a position
 * @param confirmedFlushLsn how far the client confirmed, as PostgreSQL prints an LSN
 */
public record SlotLag(
    String slot, String plugin, boolean active, Long lagBytes, String confirmedFlushLsn) {
  public SlotLag {
    if (slot == null || slot.isEmpty()) {
      throw new ConfigurationException("slot must be a replication slot name, not empty");
    }
  }
}

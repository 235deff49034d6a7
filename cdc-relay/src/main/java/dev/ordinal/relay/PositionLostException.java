package dev.ordinal.relay;

import dev.ordinal.runtime.StartRefusedException;

/**
 * The relay's slot no longer matches the position it stored: the slot is missing, invalidated
 * ({@code wal_status = 'lost'}) or ahead of the stored position (recreated, or moved by someone
 * else), so events committed in between may never have reached Kafka. The relay refuses to stream
 * (it would skip them silently); the message says since when and the commands that recover ({@code
 * relay reset-position}, then {@code relay republish}). Exit status 1.
 */
public final class PositionLostException extends StartRefusedException {
  public PositionLostException(String message) {
    super(message, 1);
  }
}

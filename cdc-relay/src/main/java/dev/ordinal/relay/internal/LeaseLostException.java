package dev.ordinal.relay.internal;

import dev.ordinal.relay.RelayException;

/**
 * The relay's leader lease ran out while it streamed: another relay may lead now, so it sent
 * nothing more and its engine stops.
 */
public final class LeaseLostException extends RelayException {
  public LeaseLostException(String message) {
    super(message);
  }
}

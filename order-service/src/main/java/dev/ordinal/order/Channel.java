package dev.ordinal.order;

import java.util.Optional;

/**
 * Who is waiting for an order: a person on a screen, or a scheduler or import. Each is the
 * contract's channel of the same name ({@link dev.ordinal.contracts.Channel}), whose wire names it
 * uses.
 */
public enum Channel {
  INTERACTIVE(dev.ordinal.contracts.Channel.INTERACTIVE),
  BULK(dev.ordinal.contracts.Channel.BULK);

  private final dev.ordinal.contracts.Channel contract;

  Channel(dev.ordinal.contracts.Channel contract) {
    this.contract = contract;
  }

  /** The wire and database name: {@code interactive} or {@code bulk}. */
  public String wireName() {
    return contract.wireName();
  }

  /** The channel named {@code name}, or empty for another name. */
  public static Optional<Channel> fromWire(String name) {
    return dev.ordinal.contracts.Channel.fromWire(name).map(c -> valueOf(c.name()));
  }

  /** The contract's channel of the same name. */
  dev.ordinal.contracts.Channel contract() {
    return contract;
  }
}

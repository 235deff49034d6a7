package dev.ordinal.lab.demo;

/** The seven invariants of DESIGN.md, in its order, each under the name the summary gives it. */
enum Invariant {
  NO_LOST_EVENT("no_lost_event"),
  NO_PHANTOM_EVENT("no_phantom_event"),
  ORDER_PER_AGGREGATE("order_per_aggregate"),
  EFFECTIVELY_ONCE("effectively_once"),
  ONE_INVOICE_ONE_CHARGE_PER_ORDER("one_invoice_one_charge_per_order"),
  GAPLESS_UNIQUE_NUMBERS("gapless_unique_numbers"),
  NO_LOCK_ACROSS_NETWORK_IO("no_lock_across_network_io");

  private final String key;

  Invariant(String key) {
    this.key = key;
  }

  /** The name in the text and JSON summaries, e.g. {@code no_lost_event}. */
  String key() {
    return key;
  }
}

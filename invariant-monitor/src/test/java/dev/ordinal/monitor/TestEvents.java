package dev.ordinal.monitor;

import dev.ordinal.contracts.Channel;
import dev.ordinal.contracts.EventCodec;
import dev.ordinal.contracts.InvoiceIssuedV1;
import dev.ordinal.contracts.InvoiceVoidedV1;
import dev.ordinal.contracts.OrderCancelledV1;
import dev.ordinal.contracts.OrderPlacedV1;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.UUID;

/**
 * The monitor's input events as the producers write them, through the contract. Tests name their
 * orders and invoices ({@code o-1}, {@code inv-1}); {@link #id} turns a name into the UUID the
 * contract requires, the same one each time.
 */
final class TestEvents {
  static final Instant AT = Instant.parse("2026-01-01T00:00:00Z");
  static final BigDecimal TOTAL = new BigDecimal("10.00");

  private TestEvents() {}

  /** The UUID standing for {@code name} ({@code o-1}, {@code inv-1}): always the same one. */
  static UUID id(String name) {
    return UUID.nameUUIDFromBytes(name.getBytes(StandardCharsets.UTF_8));
  }

  /** {@code OrderPlaced} of order {@code order}, 10.00 EUR, in {@code series}. */
  static String placed(String order, String series) {
    return EventCodec.toJson(
        new OrderPlacedV1(
            id(order),
            "c",
            "EUR",
            Channel.INTERACTIVE,
            series,
            TOTAL,
            List.of(new OrderPlacedV1.Line("ITEM", 1, TOTAL)),
            AT));
  }

  static String cancelled(String order) {
    return EventCodec.toJson(new OrderCancelledV1(id(order), "changed mind", AT));
  }

  static String issued(String order, String invoice, String series, long number) {
    return EventCodec.toJson(
        new InvoiceIssuedV1(id(invoice), id(order), series, number, TOTAL, "EUR"));
  }

  static String voided(String order, String invoice, String series, long number, String reason) {
    return EventCodec.toJson(new InvoiceVoidedV1(id(invoice), id(order), series, number, reason));
  }
}

package dev.ordinal.monitor;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.List;

/**
 * The JSON value of a record on {@code <prefix>.alerts}; the record key is the order id (order
 * alerts) or the series (series alerts). Fields that do not apply to the kind are absent.
 *
 * @param kind what was violated
 * @param orderId the order, for {@code MISSING_INVOICE} and {@code DUPLICATE_INVOICE}
 * @param series the series, for {@code DUPLICATE_NUMBER} and {@code GAP}
 * @param from the number ({@code DUPLICATE_NUMBER}) or first missing number ({@code GAP})
 * @param to the last missing number ({@code GAP}); equals {@code from} otherwise
 * @param invoiceIds the invoices involved, for the duplicate kinds
 * @param detectedAtMs when the monitor raised it (epoch millis)
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record Alert(
    AlertKind kind,
    String orderId,
    String series,
    Long from,
    Long to,
    List<String> invoiceIds,
    long detectedAtMs) {

  public static Alert missingInvoice(String orderId, long now) {
    return new Alert(AlertKind.MISSING_INVOICE, orderId, null, null, null, null, now);
  }

  public static Alert duplicateInvoice(String orderId, List<String> invoiceIds, long now) {
    return new Alert(
        AlertKind.DUPLICATE_INVOICE, orderId, null, null, null, List.copyOf(invoiceIds), now);
  }

  public static Alert duplicateNumber(
      String series, long number, List<String> invoiceIds, long now) {
    return new Alert(
        AlertKind.DUPLICATE_NUMBER, null, series, number, number, List.copyOf(invoiceIds), now);
  }

  public static Alert gap(String series, long from, long to, long now) {
    return new Alert(AlertKind.GAP, null, series, from, to, null, now);
  }
}

/**
 * The event contract of Ordinal: every event on the topics as a record, the names it travels under
 * and the one codec that writes and reads its JSON. Producers and consumers (order-service,
 * billing, the invariant monitor, the command line) share this module the way Debezium's engine and
 * its users share {@code debezium-api}: a thin library that depends on Jackson only and on no other
 * Ordinal module.
 *
 * <ul>
 *   <li>{@link dev.ordinal.contracts.EventType}: the {@code event-type} header of each event and
 *       the record its payload reads into.
 *   <li>{@link dev.ordinal.contracts.AggregateType}: the {@code aggregate-type} of an event, hence
 *       its topic {@code <prefix>.<aggregate type>} (the Debezium outbox router routes on it).
 *   <li>{@link dev.ordinal.contracts.Channel}: who waits for an order, carried in {@code
 *       OrderPlaced} and choosing its topic.
 *   <li>The payloads: {@link dev.ordinal.contracts.OrderPlacedV1}, {@link
 *       dev.ordinal.contracts.OrderCancelledV1}, {@link dev.ordinal.contracts.InvoiceIssuedV1},
 *       {@link dev.ordinal.contracts.InvoiceVoidedV1}, all {@link
 *       dev.ordinal.contracts.EventPayload}s.
 *   <li>{@link dev.ordinal.contracts.EventCodec}: the JSON, byte for byte what the producers wrote
 *       before this module existed (golden files in its tests pin it); {@link
 *       dev.ordinal.contracts.MalformedEventException} for a payload that is not one.
 * </ul>
 *
 * <p><b>Versions are in the type name</b> ({@code OrderPlacedV1}), not in a {@code VERSION}
 * constant of one record. A record is one shape: when a change breaks readers (a field renamed,
 * removed, or changing type), the new shape is a new record ({@code OrderPlacedV2}) next to the old
 * one, so a consumer reads both while producers move over, and the compiler lists every place that
 * still writes or reads V1. A constant on a single record could describe only the newest shape.
 * Adding an optional field is not a new version: readers ignore fields they do not know. The
 * version is not on the wire today (no header or field carries it); V1 is the shape the topics have
 * always carried, and a V2 would need a way to tell it apart there (a new event-type name or a
 * header) before it is written.
 *
 * <p><b>Reading</b>: unknown fields are ignored (a newer producer may add some); a missing or blank
 * required field, or one of the wrong form, is refused with a {@link
 * dev.ordinal.contracts.MalformedEventException} naming the field. What is required is what the
 * consumers need and every producer has always written; optional fields are named on each record.
 * On the topics the payload is PostgreSQL's {@code jsonb} rendering of what the producer wrote
 * (keys reordered, spaces added), which reads the same.
 */
package dev.ordinal.contracts;

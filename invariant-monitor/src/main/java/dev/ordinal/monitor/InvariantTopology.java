package dev.ordinal.monitor;

import dev.ordinal.monitor.internal.AlertCounter;
import dev.ordinal.monitor.internal.Event;
import dev.ordinal.monitor.internal.EventParser;
import dev.ordinal.monitor.internal.JsonSerde;
import dev.ordinal.monitor.internal.NumberState;
import dev.ordinal.monitor.internal.OrderChecker;
import dev.ordinal.monitor.internal.OrderState;
import dev.ordinal.monitor.internal.SeriesChecker;
import dev.ordinal.monitor.internal.SeriesState;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.composite.CompositeMeterRegistry;
import java.util.List;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.KStream;
import org.apache.kafka.streams.kstream.Named;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.kstream.Repartitioned;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.StoreBuilder;
import org.apache.kafka.streams.state.Stores;

/**
 * The invariant checks as a Kafka Streams topology.
 *
 * <p>Reads {@code <prefix>.order}, {@code <prefix>.order-bulk} and {@code <prefix>.invoice} (all
 * keyed by order id, so they must have the same partition count), drops repeated message ids,
 * checks per order (one invoice, within the deadline) and, after re-keying invoices by series
 * through an internal repartition topic, per series (no duplicate number, no gap past grace).
 * Alerts ({@link Alert} as JSON) go to {@code <prefix>.alerts} keyed by order id or series, each
 * condition once. Deadlines and graces are measured in wall-clock time from when the monitor first
 * saw the event, and checked every {@link MonitorConfig#punctuationInterval()}.
 */
public final class InvariantTopology {
  public static final String SEEN_STORE = "monitor-seen-message-ids";
  public static final String ORDER_STORE = "monitor-orders";
  public static final String PENDING_STORE = "monitor-orders-awaiting-invoice";
  public static final String SERIES_STORE = "monitor-series";
  public static final String NUMBER_STORE = "monitor-series-numbers";

  private InvariantTopology() {}

  /** The topology with alerts counted in a registry nobody reads (for tests and tools). */
  public static Topology build(MonitorConfig config) {
    return build(config, new CompositeMeterRegistry());
  }

  /** A persistent key-value store named {@code name}, of string keys and {@code values}. */
  private static <V> StoreBuilder<KeyValueStore<String, V>> store(String name, Serde<V> values) {
    return Stores.keyValueStoreBuilder(
        Stores.persistentKeyValueStore(name), Serdes.String(), values);
  }

  /**
   * The topology; every alert increments {@code ordinal.monitor.alerts{kind}} in {@code meters}.
   */
  public static Topology build(MonitorConfig config, MeterRegistry meters) {
    Serde<String> strings = Serdes.String();
    Serde<Event> events = new JsonSerde<>(Event.class);
    Serde<Alert> alerts = new JsonSerde<>(Alert.class);
    StreamsBuilder builder = new StreamsBuilder();
    builder.addStateStore(store(SEEN_STORE, Serdes.Long()));
    builder.addStateStore(store(ORDER_STORE, new JsonSerde<>(OrderState.class)));
    builder.addStateStore(store(PENDING_STORE, Serdes.Long()));
    builder.addStateStore(store(SERIES_STORE, new JsonSerde<>(SeriesState.class)));
    builder.addStateStore(store(NUMBER_STORE, new JsonSerde<>(NumberState.class)));

    KStream<String, Event> parsed =
        builder.stream(
                List.of(config.orderTopic(), config.orderBulkTopic(), config.invoiceTopic()),
                Consumed.with(strings, Serdes.ByteArray()).withName("events"))
            .process(() -> new EventParser(SEEN_STORE), Named.as("parse-and-dedupe"), SEEN_STORE);

    KStream<String, Alert> orderAlerts =
        parsed.process(
            () ->
                new OrderChecker(
                    ORDER_STORE,
                    PENDING_STORE,
                    config.invoiceDeadline(),
                    config.punctuationInterval()),
            Named.as("check-orders"),
            ORDER_STORE,
            PENDING_STORE);

    KStream<String, Alert> seriesAlerts =
        parsed
            .filter(
                (orderId, e) -> e.type().numbered() && e.series() != null,
                Named.as("invoices-with-series"))
            .selectKey((orderId, e) -> e.series(), Named.as("key-by-series"))
            .repartition(Repartitioned.with(strings, events).withName("invoices-by-series"))
            .process(
                () ->
                    new SeriesChecker(
                        SERIES_STORE,
                        NUMBER_STORE,
                        config.gapGrace(),
                        config.punctuationInterval()),
                Named.as("check-series"),
                SERIES_STORE,
                NUMBER_STORE);

    orderAlerts
        .merge(seriesAlerts, Named.as("all-alerts"))
        .process(() -> new AlertCounter(meters), Named.as("count-alerts"))
        .to(config.alertsTopic(), Produced.with(strings, alerts).withName("alerts"));
    return builder.build();
  }
}

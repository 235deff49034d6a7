package dev.ordinal.relay;

import dev.ordinal.messaging.Servers;
import dev.ordinal.runtime.ServiceAppBase;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;

/**
 * A relay process, the only place it is put together: {@link #start()} waits for PostgreSQL (with
 * {@code wal_level=logical} and a role that may replicate) and Kafka, then starts one {@link
 * OutboxRelay} per schema, each with two supervised loops — {@code relay-<schema>} (competes for
 * the slot's leader lock, streams while it holds it, steps down and runs again after a failure) and
 * {@code slot-monitor-<schema>} — with health and metrics on the management port. A standby
 * (another relay holds the lock) is ready: it takes over when the leader goes.
 *
 * <p>The slot is never dropped when the engine stops: a dropped slot loses every event committed
 * until the next start.
 *
 * <p>With {@link RelayMode#POLLING} it waits for PostgreSQL (no logical replication, no REPLICATION
 * role) and Kafka, then starts one {@link PollingRelay} per schema, each a supervised loop {@code
 * polling-relay-<schema>}: a failing database or broker shows as the loop's last error and is
 * retried after a backoff.
 */
public final class RelayApp extends ServiceAppBase {
  public static final String SERVICE = "relay";

  private final RelaySettings settings;
  private final List<OutboxRelay> relays = new ArrayList<>();
  private final List<PollingRelay> pollingRelays = new ArrayList<>();

  /** Opens the management port; starts nothing else. */
  public RelayApp(RelaySettings settings) {
    this(settings, Clock.systemUTC());
  }

  public RelayApp(RelaySettings settings, Clock clock) {
    super(SERVICE, settings.instanceId(), settings.management(), clock);
    this.settings = settings;
  }

  /** Starts with {@link #RelayApp(RelaySettings)}; closes what it opened on failure. */
  public static RelayApp start(RelaySettings settings) {
    return startOrClose(new RelayApp(settings));
  }

  /**
   * Waits for the servers (a line every few seconds naming the setting), then starts a relay per
   * schema.
   *
   * <p>An outbox table that does not exist yet is waited for too (its service creates it on its
   * first start).
   *
   * @throws dev.ordinal.messaging.ConfigurationException when the configuration is wrong ({@code
   *     wal_level}, a role without REPLICATION, an outbox it may not read, a slot or publication of
   *     another schema's outbox); one sentence, nothing started
   * @throws dev.ordinal.runtime.ServiceStoppedException when {@link #requestStop()} came first
   */
  /**
   * A relay made by {@code make} and started by {@code start}, tried again while the server is away
   * or the outbox missing (a new one each time, the failed one closed), then kept: closed with the
   * application.
   */
  private <R extends AutoCloseable> R started(
      String what,
      java.util.function.Supplier<R> make,
      java.util.function.UnaryOperator<R> start,
      java.util.function.Consumer<R> close) {
    return runtime.keep(
        runtime.retrying(
            what,
            e -> Servers.isUnavailable(e) || outboxMissing(e),
            () -> {
              R r = make.get();
              try {
                return start.apply(r);
              } catch (RuntimeException e) {
                close.accept(r);
                throw e;
              }
            }));
  }

  @Override
  public synchronized RelayApp start() {
    boolean polling = settings.mode() == RelayMode.POLLING;
    runtime.awaitServer(Servers.postgres(settings.db(), !polling));
    runtime.awaitServer(
        Servers.kafka(settings.kafkaClients().forService(SERVICE, settings.instanceId())));
    for (String schema : polling ? List.<String>of() : settings.schemas()) {
      RelayConfig config = settings.config(schema).build();
      relays.add(
          started(
              "starting the relay of " + schema + ".outbox",
              () -> new OutboxRelay(config, runtime.registry(), runtime.clock()),
              r -> r.start(runtime.supervisor()),
              OutboxRelay::close));
    }
    for (String schema : polling ? settings.schemas() : List.<String>of()) {
      PollingRelayConfig config = settings.pollingConfig(schema);
      pollingRelays.add(
          started(
              "starting the polling relay of " + schema + ".outbox",
              () -> new PollingRelay(config, runtime.registry(), runtime.clock()),
              r -> r.start(runtime.supervisor(), "polling-relay-" + schema),
              PollingRelay::close));
    }
    runtime.started();
    return this;
  }

  /**
   * The outbox table (or its schema) does not exist yet: the service that owns it creates it when
   * it first starts, so a relay deployed first waits for it. A role that may not read it is a
   * configuration to fix.
   */
  static boolean outboxMissing(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof java.sql.SQLException sql
          && ("42P01".equals(sql.getSQLState()) || "3F000".equals(sql.getSQLState()))) {
        return true;
      }
    }
    return false;
  }

  public RelaySettings settings() {
    return settings;
  }

  /** With {@link RelayMode#POLLING}: one relay per schema, in order; otherwise empty. */
  public List<PollingRelay> pollingRelays() {
    return List.copyOf(pollingRelays);
  }

  /** With {@link RelayMode#CDC}: one relay per schema, in order; otherwise empty. */
  public List<OutboxRelay> relays() {
    return List.copyOf(relays);
  }
}

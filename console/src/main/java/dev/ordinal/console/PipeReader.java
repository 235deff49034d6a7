package dev.ordinal.console;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.zaxxer.hikari.HikariDataSource;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One snapshot of the pipe, as {@code GET /api/pipe} returns it: each part read on its own, so that
 * a server that does not answer costs only its parts (named under {@code errors}, one sentence
 * each). Snapshots are read at most once per {@link #MIN_INTERVAL}; requests in between get the
 * last one.
 */
final class PipeReader implements AutoCloseable {
  static final Duration MIN_INTERVAL = Duration.ofSeconds(1);
  private static final Logger log = LoggerFactory.getLogger(PipeReader.class);
  private static final ObjectMapper JSON = new ObjectMapper();

  private final ConsoleSettings settings;
  private final Clock clock;
  private final HikariDataSource pool;
  private final DatabaseFigures db;
  private final KafkaFigures kafka;
  private final Readiness readiness;
  private final History history = new History();
  private ObjectNode last;
  private Instant lastAt = Instant.MIN;

  PipeReader(ConsoleSettings settings, Clock clock) {
    this.settings = settings;
    this.clock = clock;
    this.pool =
        settings
            .db()
            .withSchema(settings.billingSchema())
            .pool("console", 2, Duration.ofSeconds(5));
    this.db = new DatabaseFigures(dsl());
    this.kafka = new KafkaFigures(settings.kafka(), dsl(), clock);
    this.readiness = new Readiness(settings.services());
  }

  private interface Part {
    void read() throws Exception;
  }

  /** The snapshot, read now unless the last one is younger than {@link #MIN_INTERVAL}. */
  synchronized ObjectNode snapshot() throws InterruptedException {
    Instant now = clock.instant();
    if (last != null && Duration.between(lastAt, now).compareTo(MIN_INTERVAL) < 0) {
      return last;
    }
    ObjectNode s = JSON.createObjectNode();
    s.put("takenAt", now.toString());
    s.put("actions", settings.allowActions());
    ObjectNode errors = s.putObject("errors");
    var outboxes = s.putArray("outboxes");
    for (String schema : settings.outboxSchemas()) {
      read(errors, "outbox " + schema, () -> db.outbox(schema, outboxes.addObject()));
    }
    read(errors, "slots", () -> db.slots(s.putArray("slots")));
    read(errors, "groups", () -> kafka.groups(s.putArray("groups")));
    read(errors, "dlq", () -> kafka.deadLetters(s.putArray("dlq")));
    read(errors, "invoices", () -> db.invoices(s.putObject("invoices")));
    read(errors, "audit", () -> db.audit(s.putArray("audit")));
    read(errors, "replays", () -> db.replays(s.putArray("replays"), kafka::committed));
    read(errors, "services", () -> readiness.read(s.putArray("services")));
    last = s;
    lastAt = now;
    history.record(s);
    return s;
  }

  /** The plots' figures of the last hour. */
  History history() {
    return history;
  }

  /** The next snapshot is read anew, the letters of {@code dlqTopic} too (after an action). */
  synchronized void forget(String dlqTopic) {
    last = null;
    kafka.forget(dlqTopic);
  }

  /** A context on billing's schema, over the console's pool. */
  DSLContext dsl() {
    return DSL.using(pool, SQLDialect.POSTGRES);
  }

  /** The console's pool, on billing's schema. */
  HikariDataSource pool() {
    return pool;
  }

  private static void read(ObjectNode errors, String part, Part p) throws InterruptedException {
    try {
      p.read();
    } catch (InterruptedException e) {
      throw e;
    } catch (Exception e) {
      log.warn("Could not read {}: {}", part, e.toString());
      errors.put(part, e.getClass().getSimpleName() + ": " + e.getMessage());
    }
  }

  @Override
  public void close() {
    kafka.close();
    pool.close();
  }
}

package dev.ordinal.messaging.outbox;

import static dev.ordinal.messaging.db.Tables.OUTBOX;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ordinal.messaging.db.Migrations;
import dev.ordinal.runtime.Tracing;
import dev.ordinal.testkit.OrdinalStackExtension;
import dev.ordinal.testkit.TestNamespace;
import io.opentelemetry.context.Scope;
import java.time.Clock;
import java.util.Collections;
import java.util.List;
import java.util.UUID;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The W3C trace context an outbox row keeps (real PostgreSQL): the traceparent the event names and
 * the tracestate beside it, the event's own or else the current span's when the traceparent is that
 * span's; a tracestate longer than the column's 512 characters is cut by whole list members.
 */
@ExtendWith(OrdinalStackExtension.class)
class OutboxTraceContextIT {
  static final String TRACEPARENT = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
  static final String OTHER = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";

  static DSLContext dsl;
  final Outbox outbox = new Outbox(Clock.systemUTC());

  @BeforeAll
  static void schema(TestNamespace ns) {
    Migrations.applyOutbox(ns.dataSource(), ns.schema());
    dsl = DSL.using(ns.dataSource(), SQLDialect.POSTGRES);
  }

  @Test
  void theCurrentSpansTracestateIsWrittenBesideItsTraceparent() {
    UUID id;
    try (Scope current = Tracing.extract(TRACEPARENT, "ordinal=t1,congo=x").makeCurrent()) {
      id = dsl.transactionResult(c -> outbox.append(c.dsl(), event(TRACEPARENT, null)));
    }
    assertThat(traceContext(id)).containsExactly(TRACEPARENT, "ordinal=t1,congo=x");
  }

  @Test
  void anEventOfAnotherTraceGetsNoneOfTheCurrentSpans() {
    UUID id;
    try (Scope current = Tracing.extract(TRACEPARENT, "ordinal=t1").makeCurrent()) {
      id = dsl.transactionResult(c -> outbox.append(c.dsl(), event(OTHER, null)));
    }
    assertThat(traceContext(id)).containsExactly(OTHER, null);
    UUID outside = dsl.transactionResult(c -> outbox.append(c.dsl(), event(TRACEPARENT, null)));
    assertThat(traceContext(outside)).containsExactly(TRACEPARENT, null);
  }

  @Test
  void theEventsOwnTracestateWinsAndPrepareFromWritesItToo() {
    UUID own;
    try (Scope current = Tracing.extract(TRACEPARENT, "ordinal=t1").makeCurrent()) {
      own = dsl.transactionResult(c -> outbox.append(c.dsl(), event(TRACEPARENT, "rojo=r2")));
    }
    assertThat(traceContext(own)).containsExactly(TRACEPARENT, "rojo=r2");
    UUID selected =
        dsl.transactionResult(
            c -> {
              Outbox.Prepared p =
                  outbox.prepareFrom(
                      c.dsl(),
                      event(OTHER, "ordinal=t3"),
                      DSL.select(DSL.inline("order").as("t")).asTable("src"),
                      DSL.field(DSL.name("src", "t"), String.class));
              p.insert().execute();
              return p.id();
            });
    assertThat(traceContext(selected)).containsExactly(OTHER, "ordinal=t3");
  }

  @Test
  void aTracestateLongerThanTheColumnLosesItsLastMembers() {
    // 30 members of 20 characters, comma-separated: 629 characters; 24 of them make 503
    String member = "vendor00=" + "v".repeat(11);
    StringBuilder long30 = new StringBuilder();
    for (int i = 0; i < 30; i++) {
      long30.append(i == 0 ? "" : ",").append(member.replace("00", String.format("%02d", i)));
    }
    assertThat(long30).hasSize(629);
    UUID id =
        dsl.transactionResult(c -> outbox.append(c.dsl(), event(TRACEPARENT, long30.toString())));
    String stored = (String) traceContext(id).get(1);
    assertThat(stored).hasSize(503).isEqualTo(long30.substring(0, 503));
    assertThat(stored.split(",")).hasSize(24);
    assertThat(Tracing.fit("x".repeat(600), 512)).isNull();
    assertThat(Tracing.fit("a=1, " + "b".repeat(600), 512)).isEqualTo("a=1");
    assertThat(Tracing.fit(String.join("", Collections.nCopies(512, "c")), 512)).hasSize(512);
  }

  private static OutboxEvent event(String traceparent, String tracestate) {
    return new OutboxEvent(
        "order", UUID.randomUUID().toString(), "OrderPlaced", "{}", traceparent, tracestate);
  }

  /** The row's traceparent and tracestate. */
  private static List<Object> traceContext(UUID id) {
    return dsl.select(OUTBOX.TRACEPARENT, OUTBOX.TRACESTATE)
        .from(OUTBOX)
        .where(OUTBOX.ID.eq(id))
        .fetchSingle()
        .intoList();
  }
}

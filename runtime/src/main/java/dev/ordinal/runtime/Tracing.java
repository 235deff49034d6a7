package dev.ordinal.runtime;

import io.opentelemetry.api.GlobalOpenTelemetry;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.Scope;
import io.opentelemetry.context.propagation.TextMapGetter;
import io.opentelemetry.sdk.autoconfigure.AutoConfiguredOpenTelemetrySdk;
import io.opentelemetry.sdk.autoconfigure.spi.ConfigurationException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;

/**
 * Traces across the services with the OpenTelemetry API: W3C trace context ({@code traceparent},
 * {@code tracestate}) taken from an HTTP request or a record's headers, a span per piece of work
 * made its child, and the span's context written on (the outbox row, the record, the invoice).
 *
 * <p>Spans are exported over OTLP only when an endpoint is configured, the OpenTelemetry way: the
 * variable {@code OTEL_EXPORTER_OTLP_ENDPOINT} or {@code OTEL_EXPORTER_OTLP_TRACES_ENDPOINT} (or
 * their {@code otel.*} system properties), with every other {@code OTEL_*} setting of the SDK's
 * autoconfiguration honoured (the protocol defaults to {@code http/protobuf}; metrics and logs are
 * not exported: {@code /metrics} has those). Otherwise the API is a no-op that still carries the
 * incoming context on: each span has the caller's trace id and span id, so one trace id follows the
 * work from {@code POST /orders} to the invoice's events, with no span recorded.
 */
public final class Tracing {
  public static final String TRACEPARENT = "traceparent";
  public static final String TRACESTATE = "tracestate";

  /**
   * The longest tracestate that is stored (an outbox row's, an invoice's): the W3C spec's 512
   * characters that every vendor must propagate ({@link #fit}).
   */
  public static final int MAX_STORED_TRACESTATE = 512;

  /** The variables any of which turns export on. */
  public static final List<String> ENDPOINT_VARIABLES =
      List.of("OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT");

  private static final Logger log = LoggerFactory.getLogger(Tracing.class);
  private static final Pattern TRACEPARENT_FORMAT =
      Pattern.compile("[0-9a-f]{2}-([0-9a-f]{32})-[0-9a-f]{16}-[0-9a-f]{2}");
  private static final TextMapGetter<Map<String, String>> MAP =
      new TextMapGetter<>() {
        @Override
        public Iterable<String> keys(Map<String, String> carrier) {
          return carrier.keySet();
        }

        @Override
        public String get(Map<String, String> carrier, String key) {
          return carrier == null ? null : carrier.get(key);
        }
      };
  private static boolean started;
  private static volatile boolean active;

  private Tracing() {}

  /**
   * Starts exporting this process's spans as {@code service} when an endpoint is configured in
   * {@code env} or the system properties; once per process (a later call does nothing).
   *
   * @return whether spans are exported
   */
  public static synchronized boolean start(String service, Map<String, String> env) {
    if (started) {
      return false;
    }
    started = true;
    boolean configured =
        ENDPOINT_VARIABLES.stream()
            .anyMatch(
                v ->
                    present(env.get(v))
                        || present(
                            System.getProperty(
                                v.toLowerCase(java.util.Locale.ROOT).replace('_', '.'))));
    if (!configured) {
      return false;
    }
    try {
      AutoConfiguredOpenTelemetrySdk.builder()
          .addPropertiesSupplier(
              () ->
                  Map.of(
                      "otel.service.name", service,
                      // over the JDK's HTTP client: no gRPC sender is shipped
                      "otel.exporter.otlp.protocol", "http/protobuf",
                      "otel.metrics.exporter", "none",
                      "otel.logs.exporter", "none"))
          .setResultAsGlobal()
          .build();
    } catch (ConfigurationException e) {
      log.error(
          "Not exporting {}'s spans: the OTEL_* settings are refused ({}); only the http/protobuf"
              + " protocol is supported",
          service,
          e.getMessage());
      return false;
    } catch (IllegalStateException alreadySet) {
      // a library of this process set its own first: its spans are the ones exported
      active = true;
      log.warn("Not exporting {}'s spans: {}", service, alreadySet.getMessage());
      return false;
    }
    active = true;
    log.info("Exporting {}'s spans over OTLP", service);
    return true;
  }

  private static boolean present(String s) {
    return s != null && !s.isBlank();
  }

  /**
   * Whether this process records spans: {@link #start} set up the SDK, or found another already
   * set. Work that makes spans of its own only to export them (the relay's) skips them otherwise,
   * and so allocates nothing for them.
   */
  public static boolean active() {
    return active;
  }

  /** Ordinal's tracer. */
  public static Tracer tracer() {
    return GlobalOpenTelemetry.getTracer("dev.ordinal");
  }

  /**
   * The context {@code traceparent} and {@code tracestate} name; the root context when the
   * traceparent is null or malformed.
   */
  public static Context extract(String traceparent, String tracestate) {
    if (traceparent == null) {
      return Context.root();
    }
    Map<String, String> carrier = new HashMap<>();
    carrier.put(TRACEPARENT, traceparent);
    if (tracestate != null) {
      carrier.put(TRACESTATE, tracestate);
    }
    return W3CTraceContextPropagator.getInstance().extract(Context.root(), carrier, MAP);
  }

  /** A span named {@code name} of {@code kind}, a child of {@code parent}, started. */
  public static Span start(String name, SpanKind kind, Context parent) {
    return tracer().spanBuilder(name).setSpanKind(kind).setParent(parent).startSpan();
  }

  /**
   * Runs {@code work} in an internal span named {@code name}, the child of {@code traceparent}'s
   * context (a new trace, or none, when null), current meanwhile, with its trace id in the log
   * context ({@link LogContext#TRACE_ID}) as long as it runs.
   */
  public static void inSpan(String name, String traceparent, Runnable work) {
    inSpan(name, traceparent, null, work);
  }

  /**
   * As {@link #inSpan(String, String, Runnable)}, the span's parent also carrying {@code
   * tracestate} (null for none), which the span's context then carries on.
   */
  public static void inSpan(String name, String traceparent, String tracestate, Runnable work) {
    Span span = start(name, SpanKind.INTERNAL, extract(traceparent, tracestate));
    String before = MDC.get(LogContext.TRACE_ID);
    if (span.getSpanContext().isValid()) {
      MDC.put(LogContext.TRACE_ID, span.getSpanContext().getTraceId());
    }
    try (Scope current = span.makeCurrent()) {
      work.run();
    } finally {
      span.end();
      if (before == null) {
        MDC.remove(LogContext.TRACE_ID);
      } else {
        MDC.put(LogContext.TRACE_ID, before);
      }
    }
  }

  /** The traceparent of the current span; null when there is none. */
  public static String currentTraceparent() {
    return traceparent(Span.current());
  }

  /** The tracestate of the current span; null when it has none (or no valid context). */
  public static String currentTracestate() {
    return tracestate(Span.current());
  }

  /**
   * The tracestate of the current span when {@code traceparent} is that span's own (the work under
   * way writes it), else null: what to store beside that traceparent.
   */
  public static String currentTracestate(String traceparent) {
    if (traceparent == null) {
      return null;
    }
    Map<String, String> current = headers(Span.current());
    return traceparent.equals(current.get(TRACEPARENT)) ? current.get(TRACESTATE) : null;
  }

  /**
   * {@code tracestate} cut to at most {@code max} characters as W3C trace context allows: whole
   * list members are dropped from the right (the oldest entries) until it fits; null when not even
   * the first member fits, or for null.
   */
  public static String fit(String tracestate, int max) {
    if (tracestate == null || tracestate.length() <= max) {
      return tracestate;
    }
    int end = tracestate.lastIndexOf(',', max);
    while (end > 0 && tracestate.charAt(end - 1) == ' ') {
      end--;
    }
    return end <= 0 ? null : tracestate.substring(0, end);
  }

  /** {@code span}'s {@code tracestate}; null when it has none (or no valid context). */
  public static String tracestate(Span span) {
    return headers(span).get(TRACESTATE);
  }

  /** The W3C headers of {@code span}'s context ({@code traceparent}, {@code tracestate}). */
  public static Map<String, String> headers(Span span) {
    Map<String, String> out = new HashMap<>();
    W3CTraceContextPropagator.getInstance()
        .inject(Context.root().with(span), out, (c, k, v) -> c.put(k, v));
    return out;
  }

  /** {@code span}'s {@code traceparent}; null when it has no valid context. */
  public static String traceparent(Span span) {
    return headers(span).get(TRACEPARENT);
  }

  /** The trace id of a well-formed {@code traceparent}: its second field. */
  public static Optional<String> traceId(String traceparent) {
    if (traceparent == null) {
      return Optional.empty();
    }
    var m = TRACEPARENT_FORMAT.matcher(traceparent);
    return m.matches() ? Optional.of(m.group(1)) : Optional.empty();
  }
}

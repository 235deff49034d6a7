package dev.ordinal.messaging.kafka;

import java.util.Set;
import org.apache.kafka.common.header.Headers;

/**
 * How a relay writes an event's headers: Ordinal's own ({@code message-id}, {@code event-type},
 * {@code aggregate-type}, {@code occurred-at}), the CloudEvents 1.0 Kafka protocol binding in
 * binary mode ({@code ce_specversion}, {@code ce_id}, {@code ce_source}, {@code ce_type}, {@code
 * ce_time}, {@code ce_subject}, {@code content-type}; the value stays the JSON payload), or both.
 * Either way {@code traceparent} and {@code tracestate} are written when the row has them. The
 * inbox reads either form ({@link ContractHeaders#DEFAULT}). It uses nothing but Kafka's API and
 * {@link MessageHeaders}, so it runs inside a Kafka Connect worker ({@code OrdinalHeaders}); the
 * setting is {@link ContractHeaders#FORMAT}.
 */
public enum HeaderFormat {
  ORDINAL,
  CLOUDEVENTS,
  BOTH;

  public static final String CE_SPECVERSION = "ce_specversion";
  public static final String CE_ID = "ce_id";
  public static final String CE_SOURCE = "ce_source";
  public static final String CE_TYPE = "ce_type";
  public static final String CE_TIME = "ce_time";
  public static final String CE_SUBJECT = "ce_subject";

  /** CloudEvents' {@code datacontenttype} in binary mode. */
  public static final String CONTENT_TYPE = "content-type";

  public static final String SPEC_VERSION = "1.0";
  public static final String JSON = "application/json";

  /** The headers {@link #write} may write, in any format. */
  public static final Set<String> NAMES =
      Set.of(
          MessageHeaders.MESSAGE_ID,
          MessageHeaders.EVENT_TYPE,
          MessageHeaders.AGGREGATE_TYPE,
          MessageHeaders.OCCURRED_AT,
          MessageHeaders.TRACEPARENT,
          MessageHeaders.TRACESTATE,
          CE_SPECVERSION,
          CE_ID,
          CE_SOURCE,
          CE_TYPE,
          CE_TIME,
          CE_SUBJECT,
          CONTENT_TYPE);

  /**
   * What an outbox row says about its event, as header text.
   *
   * @param occurredAt when it was written, ISO-8601
   * @param traceparent W3C trace context; null when the row has none
   * @param tracestate W3C trace state beside it; null when the row has none
   */
  public record Event(
      String id,
      String eventType,
      String aggregateType,
      String aggregateId,
      String occurredAt,
      String traceparent,
      String tracestate) {}

  /** The CloudEvents source of an outbox's events: {@code /ordinal/<schema>}. */
  public static String source(String outboxSchema) {
    return "/ordinal/" + outboxSchema;
  }

  /**
   * Adds {@code e}'s headers in this format to {@code out}; {@code source} is {@code ce_source}.
   */
  public void write(Headers out, Event e, String source) {
    if (this != CLOUDEVENTS) {
      add(out, MessageHeaders.MESSAGE_ID, e.id());
      add(out, MessageHeaders.EVENT_TYPE, e.eventType());
      add(out, MessageHeaders.AGGREGATE_TYPE, e.aggregateType());
      add(out, MessageHeaders.OCCURRED_AT, e.occurredAt());
    }
    add(out, MessageHeaders.TRACEPARENT, e.traceparent());
    add(out, MessageHeaders.TRACESTATE, e.tracestate());
    if (this != ORDINAL) {
      add(out, CE_SPECVERSION, SPEC_VERSION);
      add(out, CE_ID, e.id());
      add(out, CE_SOURCE, source);
      add(out, CE_TYPE, e.eventType());
      add(out, CE_TIME, e.occurredAt());
      add(out, CE_SUBJECT, e.aggregateId());
      add(out, CONTENT_TYPE, JSON);
    }
  }

  private static void add(Headers out, String name, String value) {
    if (value != null) {
      out.add(name, MessageHeaders.encode(value));
    }
  }
}

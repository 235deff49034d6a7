package dev.ordinal.runtime;

/**
 * The names of the fields the services put in each log line's context (slf4j's MDC): with {@code
 * ORDINAL_LOG_FORMAT=json} each is a field of the line's JSON object, present where it applies.
 */
public final class LogContext {
  /** The service instance's {@code --instance-id} (relay, billing), on its loops' lines. */
  public static final String INSTANCE = "instance";

  /** The supervised loop the line comes from ({@code inbox-consumer}, {@code relay-orders}). */
  public static final String LOOP = "loop";

  /** The message id of the inbox record being applied. */
  public static final String MESSAGE_ID = "message_id";

  /** The trace id of that record: the second field of its W3C {@code traceparent} header. */
  public static final String TRACE_ID = "trace_id";

  private LogContext() {}
}

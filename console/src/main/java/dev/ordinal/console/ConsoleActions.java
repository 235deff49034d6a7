package dev.ordinal.console;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ordinal.messaging.ConfigurationException;
import dev.ordinal.ops.dlq.DeadLetterFilter;
import dev.ordinal.ops.dlq.DeadLetters;
import dev.ordinal.ops.dlq.DiscardResult;
import dev.ordinal.ops.dlq.RedriveResult;
import dev.ordinal.ops.replay.ReplayLog;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * What the page may change when the console was started with {@code --allow-actions}: re-drive or
 * discard the dead letters of one topic, all of them or those of one error, as {@code ./ordinal dlq
 * redrive} and {@code dlq discard} do (ops' {@link DeadLetters}): a dry run unless {@code execute}
 * is true, the loop guard applied, each executed one recorded in {@code dlq_redrive_log} of
 * billing's schema under {@code console:<subject>}.
 *
 * <p>A request is a JSON object: {@code topic} (a {@code <topic>.dlq}), {@code error} (optional:
 * only the letters of this error), {@code execute} (default false) and, for a re-drive, {@code
 * maxRedrives} (default {@value DeadLetters#DEFAULT_MAX_REDRIVES}).
 */
final class ConsoleActions {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Duration TIMEOUT = Duration.ofSeconds(30);

  private final PipeReader reader;
  private final DeadLetters deadLetters;
  private final String schema;
  private volatile boolean migrated;

  ConsoleActions(ConsoleSettings settings, PipeReader reader, Clock clock) {
    this.reader = reader;
    this.schema = settings.billingSchema();
    this.deadLetters = new DeadLetters(settings.kafka(), reader.dsl(), clock, TIMEOUT);
  }

  /** A re-drive, or its dry run, for {@code subject}. */
  ObjectNode redrive(String subject, byte[] body) {
    Request r = Request.of(body);
    int max = r.json().path("maxRedrives").asInt(DeadLetters.DEFAULT_MAX_REDRIVES);
    if (r.execute()) {
      migrate();
    }
    RedriveResult result =
        deadLetters.redrive(r.topic(), r.filter(), by(subject), max, r.execute());
    reader.forget(r.topic());
    ObjectNode o = answer("redrive", r, result.executed());
    o.put("redriven", result.redriven().size());
    o.put("refused", result.refused().size());
    o.put("skipped", result.skipped().size());
    o.put("maxRedrives", result.maxRedrives());
    counts(o.putObject("byTopic"), result.byTopic());
    counts(o.putObject("byError"), result.byError());
    return o;
  }

  /** A discard, or its dry run, for {@code subject}. */
  ObjectNode discard(String subject, byte[] body) {
    Request r = Request.of(body);
    if (r.execute()) {
      migrate();
    }
    DiscardResult result = deadLetters.discard(r.topic(), r.filter(), by(subject), r.execute());
    reader.forget(r.topic());
    ObjectNode o = answer("discard", r, result.executed());
    o.put("discarded", result.discarded().size());
    o.put("alreadyDiscarded", result.alreadyDiscarded());
    return o;
  }

  private static ObjectNode answer(String action, Request r, boolean executed) {
    ObjectNode o = JSON.createObjectNode();
    o.put("action", action);
    o.put("topic", r.topic());
    o.put("error", r.error());
    o.put("executed", executed);
    return o;
  }

  private static void counts(ObjectNode into, Map<String, Long> counts) {
    counts.forEach(into::put);
  }

  private static String by(String subject) {
    return "console:" + subject;
  }

  /** The log's table, made in billing's schema before the first action that writes it. */
  private void migrate() {
    if (!migrated) {
      ReplayLog.migrate(reader.pool(), schema);
      migrated = true;
    }
  }

  /** A request's fields, checked: one sentence naming the field that is wrong. */
  private record Request(JsonNode json, String topic, String error, boolean execute) {
    static Request of(byte[] body) {
      JsonNode json;
      try {
        json = JSON.readTree(body);
      } catch (java.io.IOException e) {
        throw new ConfigurationException("The request body must be a JSON object.");
      }
      if (json == null || !json.isObject()) {
        throw new ConfigurationException("The request body must be a JSON object.");
      }
      JsonNode topic = json.path("topic");
      if (!topic.isTextual() || !topic.asText().endsWith(KafkaFigures.DLQ_SUFFIX)) {
        throw new ConfigurationException(
            "topic must name a dead-letter topic (<topic>" + KafkaFigures.DLQ_SUFFIX + ").");
      }
      JsonNode execute = json.path("execute");
      if (!execute.isMissingNode() && !execute.isBoolean()) {
        throw new ConfigurationException("execute must be true or false.");
      }
      JsonNode max = json.path("maxRedrives");
      if (!max.isMissingNode() && !max.canConvertToInt()) {
        throw new ConfigurationException("maxRedrives must be a whole number.");
      }
      String error = json.path("error").isTextual() ? json.get("error").asText() : null;
      return new Request(json, topic.asText(), error, execute.asBoolean(false));
    }

    DeadLetterFilter filter() {
      return error == null
          ? DeadLetterFilter.ALL
          : new DeadLetterFilter(
              List.of(new DeadLetterFilter.Clause(DeadLetterFilter.Field.ERROR, false, error)));
    }
  }
}

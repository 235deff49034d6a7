package dev.ordinal.ops.dlq;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.kafka.common.header.Header;

/**
 * What {@code ./ordinal dlq} prints: the text for people and one JSON document for programs ({@code
 * --json}). The JSON field names are stable (docs/OPERATIONS.md lists them); a value that is not
 * known (a missing header, the target offset of a dry run) is {@code null}.
 */
public final class DeadLetterReports {
  private static final ObjectMapper JSON = new ObjectMapper();

  private DeadLetterReports() {}

  /** One line per letter, or with {@code byError} one line per error with its count. */
  public static void text(DeadLetterList l, boolean byError, PrintWriter out) {
    out.printf(
        "%d dead letter(s) in %s (%s)%s%n",
        l.letters().size(),
        l.topic(),
        l.filter(),
        l.discarded() == 0 ? "" : "; " + l.discarded() + " discarded, not shown");
    if (byError) {
      l.byError().forEach((error, n) -> out.printf("  %6d  %s%n", n, abbreviate(error, 120)));
      return;
    }
    if (!l.letters().isEmpty()) {
      out.printf(
          "  %-16s %-24s %-32s %-20s %-12s %9s  %s%n",
          "partition@offset",
          "dead-lettered at",
          "from",
          "message-id",
          "consumer",
          "re-driven",
          "error");
    }
    for (DeadLetter d : l.letters()) {
      out.printf(
          "  %-16s %-24s %-32s %-20s %-12s %9d  %s%n",
          d.partition() + "@" + d.offset(),
          d.deadLetteredAt().map(Object::toString).orElse("-"),
          origin(d),
          d.messageId().orElse("-"),
          d.consumer().orElse("-"),
          l.redriven(d),
          abbreviate(d.error().orElse("-"), 100));
    }
  }

  /** Each letter whole: headers, key and payload. */
  public static void show(DeadLetterList l, PrintWriter out) {
    if (l.letters().isEmpty()) {
      out.printf("No dead letter in %s matches %s.%n", l.topic(), l.filter());
    }
    for (DeadLetter d : l.letters()) {
      out.printf("%s %d@%d%n", d.topic(), d.partition(), d.offset());
      out.printf("  from        %s%n", origin(d));
      out.printf("  message-id  %s%n", d.messageId().orElse("-"));
      out.printf("  consumer    %s%n", d.consumer().orElse("-"));
      out.printf("  at          %s%n", d.deadLetteredAt().map(Object::toString).orElse("-"));
      out.printf("  error       %s%n", d.error().orElse("-"));
      out.printf("  re-driven   %d time(s)%n", l.redriven(d));
      out.printf("  key         %s%n", d.key());
      out.printf(
          "  headers     %s%n",
          d.originalHeaders().stream()
              .map(DeadLetterReports::header)
              .collect(Collectors.joining(", ")));
      out.printf("  payload     %s%n", d.payload());
      out.println();
    }
  }

  /** A re-drive, or its dry run, as JSON ({@code json}) or as {@link #text} says it. */
  public static void print(
      RedriveResult r,
      String topic,
      DeadLetterFilter filter,
      String logTable,
      boolean json,
      PrintWriter out) {
    if (json) {
      out.println(json(r, topic, filter));
    } else {
      text(r, topic, filter, logTable, out);
    }
  }

  /** A discard, or its dry run, as JSON ({@code json}) or as {@link #text} says it. */
  public static void print(
      DiscardResult r,
      String topic,
      DeadLetterFilter filter,
      String logTable,
      boolean json,
      PrintWriter out) {
    if (json) {
      out.println(json(r, topic, filter));
    } else {
      text(r, topic, filter, logTable, out);
    }
  }

  /** A re-drive, or its dry run; {@code logTable} names where it was recorded. */
  public static void text(
      RedriveResult r, String topic, DeadLetterFilter filter, String logTable, PrintWriter out) {
    if (r.executed()) {
      out.printf(
          "Re-drove %d dead letter(s) of %s (%s), recorded in %s:%n",
          r.redriven().size(), topic, filter, logTable);
    } else {
      out.printf(
          "Dry run: would re-drive %d dead letter(s) of %s (%s); nothing was produced or"
              + " recorded, add --execute to do it:%n",
          r.redriven().size(), topic, filter);
    }
    r.byTopic().forEach((t, n) -> out.printf("  %6d to %s%n", n, t));
    r.byError().forEach((e, n) -> out.printf("  %6d with error %s%n", n, abbreviate(e, 100)));
    for (RedriveResult.Redriven d : r.redriven()) {
      out.printf(
          "  %s -> %s %s%s  message-id %s%s%n",
          at(d.source()),
          d.topic(),
          d.partition() < 0 ? "-" : d.partition(),
          d.offset() < 0 ? "" : "@" + d.offset(),
          d.source().messageId().orElse("-"),
          d.earlierRedrives() == 0
              ? ""
              : "  (re-driven " + d.earlierRedrives() + " time(s) before)");
    }
    if (!r.refused().isEmpty()) {
      out.printf("Refused %d (at most %d re-drives):%n", r.refused().size(), r.maxRedrives());
      for (RedriveResult.Refused d : r.refused()) {
        out.printf(
            "  %s message-id %s: %s%n",
            at(d.source()), d.source().messageId().orElse("-"), d.reason());
      }
    }
    if (!r.skipped().isEmpty()) {
      out.printf("Skipped %d:%n", r.skipped().size());
      r.skipped().forEach(s -> out.printf("  %s: %s%n", at(s.source()), s.reason()));
    }
  }

  /** A discard, or its dry run. */
  public static void text(
      DiscardResult r, String topic, DeadLetterFilter filter, String logTable, PrintWriter out) {
    if (r.executed()) {
      out.printf(
          "Discarded %d dead letter(s) of %s (%s), recorded in %s; redrive and list skip them:%n",
          r.discarded().size(), topic, filter, logTable);
    } else {
      out.printf(
          "Dry run: would discard %d dead letter(s) of %s (%s); nothing was recorded, add"
              + " --execute to do it:%n",
          r.discarded().size(), topic, filter);
    }
    for (DeadLetter d : r.discarded()) {
      out.printf(
          "  %s  message-id %s  %s%n",
          at(d), d.messageId().orElse("-"), abbreviate(d.error().orElse("-"), 100));
    }
    if (r.alreadyDiscarded() > 0) {
      out.printf("%d discarded before, left out.%n", r.alreadyDiscarded());
    }
  }

  /**
   * {@code dlq list --json} ({@code full}: {@code dlq show --json}, with key, payload, headers).
   */
  public static String json(DeadLetterList l, boolean full) {
    ObjectNode root = head(l.topic(), l.filter());
    root.put("count", l.letters().size());
    root.put("discarded", l.discarded());
    root.set("byError", counts(l.byError()));
    ArrayNode letters = root.putArray("letters");
    for (DeadLetter d : l.letters()) {
      ObjectNode n = letter(d).put("redriven", l.redriven(d));
      if (full) {
        n.put("key", d.key()).put("payload", d.payload());
        ObjectNode headers = n.putObject("headers");
        d.originalHeaders().forEach(h -> headers.put(h.key(), value(h)));
      }
      letters.add(n);
    }
    return write(root);
  }

  /** {@code dlq redrive --json}. */
  public static String json(RedriveResult r, String topic, DeadLetterFilter filter) {
    ObjectNode root = head(topic, filter);
    root.put("executed", r.executed());
    root.put("maxRedrives", r.maxRedrives());
    root.putObject("counts")
        .put("redriven", r.redriven().size())
        .put("refused", r.refused().size())
        .put("skipped", r.skipped().size());
    root.set("byTopic", counts(r.byTopic()));
    root.set("byError", counts(r.byError()));
    ArrayNode redriven = root.putArray("redriven");
    for (RedriveResult.Redriven d : r.redriven()) {
      ObjectNode n = letter(d.source()).put("earlierRedrives", d.earlierRedrives());
      n.putObject("to")
          .put("topic", d.topic())
          .put("partition", d.partition() < 0 ? null : d.partition())
          .put("offset", d.offset() < 0 ? null : d.offset())
          .put("redriveCount", d.count());
      redriven.add(n);
    }
    ArrayNode refused = root.putArray("refused");
    r.refused()
        .forEach(
            d ->
                refused.add(
                    letter(d.source()).put("redrives", d.redrives()).put("reason", d.reason())));
    ArrayNode skipped = root.putArray("skipped");
    r.skipped().forEach(d -> skipped.add(letter(d.source()).put("reason", d.reason())));
    return write(root);
  }

  /** {@code dlq discard --json}. */
  public static String json(DiscardResult r, String topic, DeadLetterFilter filter) {
    ObjectNode root = head(topic, filter);
    root.put("executed", r.executed());
    root.put("count", r.discarded().size());
    root.put("alreadyDiscarded", r.alreadyDiscarded());
    ArrayNode letters = root.putArray("discarded");
    r.discarded().forEach(d -> letters.add(letter(d)));
    return write(root);
  }

  private static ObjectNode head(String topic, DeadLetterFilter filter) {
    return JSON.createObjectNode().put("topic", topic).put("filter", filter.toString());
  }

  private static ObjectNode letter(DeadLetter d) {
    ObjectNode n = JSON.createObjectNode();
    n.put("partition", d.partition()).put("offset", d.offset());
    n.put("messageId", d.messageId().orElse(null));
    n.put("originalTopic", d.originalTopic().orElse(null));
    n.put(
        "originalPartition",
        d.originalPartition().isPresent() ? d.originalPartition().getAsInt() : null);
    n.put("originalOffset", d.originalOffset().isPresent() ? d.originalOffset().getAsLong() : null);
    n.put("consumer", d.consumer().orElse(null));
    n.put("error", d.error().orElse(null));
    n.put("deadLetteredAt", d.deadLetteredAt().map(Object::toString).orElse(null));
    n.put("redriveCount", d.redriveCount());
    return n;
  }

  private static ObjectNode counts(Map<String, Long> counts) {
    ObjectNode n = JSON.createObjectNode();
    counts.forEach(n::put);
    return n;
  }

  private static String write(ObjectNode root) {
    try {
      return JSON.writerWithDefaultPrettyPrinter().writeValueAsString(root);
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static String at(DeadLetter d) {
    return d.partition() + "@" + d.offset();
  }

  private static String origin(DeadLetter d) {
    return d.originalTopic().orElse("-")
        + " "
        + (d.originalPartition().isPresent() ? d.originalPartition().getAsInt() : "-")
        + "@"
        + (d.originalOffset().isPresent() ? d.originalOffset().getAsLong() : "-");
  }

  private static String header(Header h) {
    return h.key() + "=" + value(h);
  }

  private static String value(Header h) {
    return h.value() == null ? "" : new String(h.value(), StandardCharsets.UTF_8);
  }

  private static String abbreviate(String s, int max) {
    String line = s.replace('\n', ' ');
    return line.length() <= max ? line : line.substring(0, max - 3) + "...";
  }
}

package dev.ordinal.cli;

import dev.ordinal.ops.dlq.DeadLetter;
import dev.ordinal.ops.dlq.DeadLetterFilter;
import dev.ordinal.ops.dlq.DeadLetters;
import dev.ordinal.ops.dlq.RedriveResult;
import dev.ordinal.ops.replay.ReplayLog;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import javax.sql.DataSource;
import org.apache.kafka.common.header.Header;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

@Command(
    name = "dlq",
    mixinStandardHelpOptions = true,
    description = {
      "Dead letters: list them, show them whole, and re-drive the fixed ones to their source topic"
          + " with their original message id, so an inbox that applied one meanwhile drops it as a"
          + " duplicate. Each re-drive is recorded in <schema>.dlq_redrive_log.",
      "",
      "Servers: ORDINAL_KAFKA_BOOTSTRAP and ORDINAL_DB_URL / ORDINAL_DB_USER / ORDINAL_DB_PASSWORD"
          + " (the ones the services use); Kafka's client properties (security, SASL, SSL) from"
          + " --command-config or ORDINAL_KAFKA_CONFIG.",
      "Exit status: 0 done; 1 a failure on the way; 2 bad input or a refusal (nothing was changed),"
          + " or a missing ACL, named in one sentence (READ on the dead-letter topic, WRITE on the"
          + " topic a letter goes back to; letters re-driven before it are recorded)."
    },
    subcommands = {
      DlqCommand.ListCommand.class,
      DlqCommand.ShowCommand.class,
      DlqCommand.RedriveCommand.class
    })
final class DlqCommand extends CommandGroup {

  /** Which dead letters, and where the re-drive log is; shared by the subcommands. */
  static final class Selection {
    @Option(
        names = "--topic",
        required = true,
        paramLabel = "T.dlq",
        description = "The dead-letter topic.")
    String topic;

    @Option(
        names = "--where",
        paramLabel = "CLAUSE",
        description =
            "Only dead letters where FIELD=VALUE (equal) or FIELD~=TEXT (contains, any case);"
                + " repeat to require several. Fields: message-id, error, consumer, key,"
                + " partition, offset, original-topic, original-partition, original-offset.")
    List<String> where;

    @Option(
        names = "--schema",
        defaultValue = "billing",
        description =
            "Schema holding dlq_redrive_log, next to the consumer's inbox (default"
                + " ${DEFAULT-VALUE}).")
    String schema;

    @Mixin CommandConfigOption kafkaConfig = new CommandConfigOption();

    // visible for testing
    Map<String, String> env = System.getenv();
    Clock clock = Clock.systemUTC();
    String user = System.getProperty("user.name", "unknown");

    DeadLetterFilter filter() {
      return DeadLetterFilter.parse(where);
    }

    DeadLetters deadLetters(ExternalServers servers, DataSource ds) {
      return new DeadLetters(
          servers.checkedKafka(),
          DSL.using(ds, SQLDialect.POSTGRES),
          clock,
          DeadLetters.DEFAULT_TIMEOUT);
    }

    /** The selected dead letters, read without changing anything, with their re-drive counts. */
    Read read(ExternalServers servers, DeadLetterFilter filter) {
      DeadLetters dlq = deadLetters(servers, servers.database(schema, false));
      return new Read(dlq.read(topic, filter), dlq.redriveCounts(topic));
    }
  }

  /** Dead letters as read, and how many times each was re-driven. */
  record Read(List<DeadLetter> letters, Map<DeadLetter.Position, Integer> redriven) {
    int redriven(DeadLetter d) {
      return redriven.getOrDefault(d.position(), 0);
    }
  }

  /** A subcommand: its work on the selection, on the servers the services use. */
  abstract static class Subcommand implements Callable<Integer> {
    @Mixin Selection selection;
    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
      String command = "dlq " + spec.name();
      return ExternalServers.run(
          spec.commandLine(),
          command,
          () -> {
            // a bad filter is named before a missing server
            DeadLetterFilter filter = selection.filter();
            return ExternalServers.within(
                selection.env,
                command,
                selection.kafkaConfig.file,
                // it reads the dead-letter topic and writes to the topics its letters came from
                resource -> resource.equals("topic " + selection.topic) ? "READ" : "WRITE",
                spec.commandLine().getOut(),
                (servers, out) -> apply(servers, filter, out));
          });
    }

    abstract int apply(ExternalServers servers, DeadLetterFilter filter, PrintWriter out);
  }

  @Command(
      name = "list",
      mixinStandardHelpOptions = true,
      description =
          "One line per dead letter: where it is, where it came from, why, and how"
              + " many times it was re-driven.")
  static final class ListCommand extends Subcommand {
    @Override
    int apply(ExternalServers servers, DeadLetterFilter filter, PrintWriter out) {
      Read read = selection.read(servers, filter);
      List<DeadLetter> letters = read.letters();
      out.printf("%d dead letter(s) in %s (%s)%n", letters.size(), selection.topic, filter);
      if (!letters.isEmpty()) {
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
      for (DeadLetter d : letters) {
        out.printf(
            "  %-16s %-24s %-32s %-20s %-12s %9d  %s%n",
            d.partition() + "@" + d.offset(),
            d.deadLetteredAt().map(Object::toString).orElse("-"),
            origin(d),
            d.messageId().orElse("-"),
            d.consumer().orElse("-"),
            read.redriven(d),
            abbreviate(d.error().orElse("-"), 100));
      }
      out.flush();
      return 0;
    }
  }

  @Command(
      name = "show",
      mixinStandardHelpOptions = true,
      description = "Each matching dead letter whole: headers, key and payload.")
  static final class ShowCommand extends Subcommand {
    @Override
    int apply(ExternalServers servers, DeadLetterFilter filter, PrintWriter out) {
      Read read = selection.read(servers, filter);
      List<DeadLetter> letters = read.letters();
      if (letters.isEmpty()) {
        out.printf("No dead letter in %s matches %s.%n", selection.topic, filter);
      }
      for (DeadLetter d : letters) {
        out.printf("%s %d@%d%n", d.topic(), d.partition(), d.offset());
        out.printf("  from        %s%n", origin(d));
        out.printf("  message-id  %s%n", d.messageId().orElse("-"));
        out.printf("  consumer    %s%n", d.consumer().orElse("-"));
        out.printf("  at          %s%n", d.deadLetteredAt().map(Object::toString).orElse("-"));
        out.printf("  error       %s%n", d.error().orElse("-"));
        out.printf("  re-driven   %d time(s)%n", read.redriven(d));
        out.printf("  key         %s%n", d.key());
        out.printf(
            "  headers     %s%n",
            d.originalHeaders().stream().map(DlqCommand::header).collect(Collectors.joining(", ")));
        out.printf("  payload     %s%n", d.payload());
        out.println();
      }
      out.flush();
      return 0;
    }
  }

  @Command(
      name = "redrive",
      mixinStandardHelpOptions = true,
      description = {
        "Produces the matching dead letters back to their source topic and partition, with their"
            + " key, payload and original headers (the dlq-* ones removed), so the same message id"
            + " travels again; records each in <schema>.dlq_redrive_log.",
        "Fix the consumer first: a record it still rejects is dead-lettered again. Re-driving"
            + " twice applies nothing twice (the inbox drops the second copy).",
        "Dead letters without a message id are not re-driven (the inbox could not recognise"
            + " them); they are listed as skipped."
      })
  static final class RedriveCommand extends Subcommand {
    @Override
    int apply(ExternalServers servers, DeadLetterFilter filter, PrintWriter out) {
      DataSource ds = servers.database(selection.schema, true);
      ReplayLog.migrate(ds, selection.schema);
      RedriveResult result =
          selection.deadLetters(servers, ds).redrive(selection.topic, filter, selection.user);
      out.printf(
          "Re-drove %d dead letter(s) of %s (%s), recorded in %s.dlq_redrive_log:%n",
          result.redriven().size(), selection.topic, filter, selection.schema);
      for (RedriveResult.Redriven r : result.redriven()) {
        out.printf(
            "  %d@%d -> %s %d@%d  message-id %s%s%n",
            r.source().partition(),
            r.source().offset(),
            r.topic(),
            r.partition(),
            r.offset(),
            r.source().messageId().orElse("-"),
            r.earlierRedrives() == 0
                ? ""
                : "  (re-driven " + r.earlierRedrives() + " time(s) before)");
      }
      if (!result.skipped().isEmpty()) {
        out.printf("Skipped %d:%n", result.skipped().size());
        for (RedriveResult.Skipped s : result.skipped()) {
          out.printf("  %d@%d: %s%n", s.source().partition(), s.source().offset(), s.reason());
        }
      }
      out.flush();
      return 0;
    }
  }

  private static String origin(DeadLetter d) {
    return d.originalTopic().orElse("-")
        + " "
        + (d.originalPartition().isPresent() ? d.originalPartition().getAsInt() : "-")
        + "@"
        + (d.originalOffset().isPresent() ? d.originalOffset().getAsLong() : "-");
  }

  private static String header(Header h) {
    return h.key() + "=" + (h.value() == null ? "" : new String(h.value(), StandardCharsets.UTF_8));
  }

  private static String abbreviate(String s, int max) {
    String line = s.replace('\n', ' ');
    return line.length() <= max ? line : line.substring(0, max - 3) + "...";
  }
}

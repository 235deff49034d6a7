package dev.ordinal.cli;

import dev.ordinal.ops.dlq.DeadLetterFilter;
import dev.ordinal.ops.dlq.DeadLetterList;
import dev.ordinal.ops.dlq.DeadLetterReports;
import dev.ordinal.ops.dlq.DeadLetters;
import dev.ordinal.ops.dlq.DiscardResult;
import dev.ordinal.ops.dlq.RedriveResult;
import dev.ordinal.ops.replay.ReplayLog;
import java.io.PrintWriter;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import javax.sql.DataSource;
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
      "Dead letters (Ordinal's <topic>.dlq, or Spring Kafka's <topic>.DLT): list them, show them"
          + " whole, re-drive the fixed ones to their source topic with their original message id"
          + " (an inbox that applied one meanwhile drops it as a duplicate), or discard them."
          + " redrive and discard are dry runs unless --execute; each done is recorded in"
          + " <schema>.dlq_redrive_log.",
      "",
      "Servers: ORDINAL_KAFKA_BOOTSTRAP and ORDINAL_DB_URL / ORDINAL_DB_USER / ORDINAL_DB_PASSWORD"
          + " (the ones the services use); Kafka's client properties (security, SASL, SSL) from"
          + " --command-config or ORDINAL_KAFKA_CONFIG.",
      "Exit status: 0 done; 1 a failure on the way, or redrive letters refused by --max-redrives;"
          + " 2 bad input or a refusal (nothing was changed),"
          + " or a missing ACL, named in one sentence (READ on the dead-letter topic, WRITE on the"
          + " topic a letter goes back to; letters re-driven before it are recorded)."
    },
    subcommands = {
      DlqCommand.ListCommand.class,
      DlqCommand.ShowCommand.class,
      DlqCommand.RedriveCommand.class,
      DlqCommand.DiscardCommand.class
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

    DeadLetters deadLetters(ExternalServers servers, boolean change, boolean execute) {
      DataSource ds = servers.database(schema, change);
      if (execute) {
        ReplayLog.migrate(ds, schema);
      }
      return new DeadLetters(
          servers.checkedKafka(),
          DSL.using(ds, SQLDialect.POSTGRES),
          clock,
          DeadLetters.DEFAULT_TIMEOUT);
    }

    String logTable() {
      return schema + ".dlq_redrive_log";
    }
  }

  /** A subcommand: its work on the selection, on the servers the services use. */
  abstract static class Subcommand implements Callable<Integer> {
    @Mixin Selection selection;
    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @Option(names = "--json", description = "One JSON document (docs/OPERATIONS.md).")
    boolean json;

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
                (servers, out) -> {
                  int status = apply(servers, filter, out);
                  out.flush();
                  return status;
                });
          });
    }

    abstract int apply(ExternalServers servers, DeadLetterFilter filter, PrintWriter out);

    /** The selected letters, not discarded, read without changing anything. */
    DeadLetterList list(ExternalServers servers, DeadLetterFilter filter) {
      return selection.deadLetters(servers, false, false).list(selection.topic, filter);
    }
  }

  @Command(
      name = "list",
      mixinStandardHelpOptions = true,
      description =
          "One line per dead letter: where it is, where it came from, why, and how many times it"
              + " was re-driven; discarded ones are left out. Reads only.")
  static final class ListCommand extends Subcommand {
    @Option(
        names = "--group-by",
        paramLabel = "error",
        description = "error: one line per error with its count, instead of one per letter.")
    GroupBy groupBy;

    enum GroupBy {
      error
    }

    @Override
    int apply(ExternalServers servers, DeadLetterFilter filter, PrintWriter out) {
      DeadLetterList list = list(servers, filter);
      if (json) {
        out.println(DeadLetterReports.json(list, false));
      } else {
        DeadLetterReports.text(list, groupBy != null, out);
      }
      return 0;
    }
  }

  @Command(
      name = "show",
      mixinStandardHelpOptions = true,
      description = "Each matching dead letter whole: headers, key and payload. Reads only.")
  static final class ShowCommand extends Subcommand {
    @Override
    int apply(ExternalServers servers, DeadLetterFilter filter, PrintWriter out) {
      DeadLetterList list = list(servers, filter);
      if (json) {
        out.println(DeadLetterReports.json(list, true));
      } else {
        DeadLetterReports.show(list, out);
      }
      return 0;
    }
  }

  @Command(
      name = "redrive",
      mixinStandardHelpOptions = true,
      description = {
        "A dry run unless --execute: prints what would be re-driven (how many, per topic, per"
            + " error) and changes nothing. With --execute, produces the matching dead letters"
            + " back to their source topic and partition, with their key, payload and original"
            + " headers (the dlq-* and kafka_dlt-* ones removed), so the same message id travels"
            + " again; records each in <schema>.dlq_redrive_log.",
        "Each re-driven record carries ordinal-redrive-count (its re-drives so far, plus one)."
            + " A letter re-driven --max-redrives times already is refused, not re-driven.",
        "Executed, it prints on stderr every 1,000 records Kafka acknowledged, every 5 s and at"
            + " the end a line such as: redriven 1,000 of 5,000 dead letters of T.dlq.",
        "Fix the consumer first: a record it still rejects is dead-lettered again. Re-driving"
            + " twice applies nothing twice (the inbox drops the second copy). Dead letters"
            + " without a message id, and discarded ones, are skipped.",
        "Exit status: 0 done; 1 some letters were refused by --max-redrives (the others were"
            + " re-driven, or would be), or a failure on the way; 2 bad input."
      })
  static final class RedriveCommand extends Subcommand {
    @Option(names = "--execute", description = "Re-drive; without it, a dry run.")
    boolean execute;

    @Option(
        names = "--max-redrives",
        defaultValue = "3",
        description =
            "Refuse a letter re-driven this many times already (default ${DEFAULT-VALUE}).")
    int maxRedrives;

    @Override
    int apply(ExternalServers servers, DeadLetterFilter filter, PrintWriter out) {
      PrintWriter progress = spec.commandLine().getErr(); // stdout holds the report alone
      RedriveResult result =
          selection
              .deadLetters(servers, true, execute)
              .redrive(
                  selection.topic, filter, selection.user, maxRedrives, execute, progress::println);
      DeadLetterReports.print(result, selection.topic, filter, selection.logTable(), json, out);
      return result.refused().isEmpty() ? 0 : 1;
    }
  }

  @Command(
      name = "discard",
      mixinStandardHelpOptions = true,
      description = {
        "A dry run unless --execute: prints the matching dead letters it would discard. With"
            + " --execute, marks them as handled without re-driving them, one row each in"
            + " <schema>.dlq_redrive_log with action discard; redrive and list skip them from then"
            + " on.",
        "Exit status: 0 done; 1 a failure on the way; 2 bad input."
      })
  static final class DiscardCommand extends Subcommand {
    @Option(names = "--execute", description = "Discard; without it, a dry run.")
    boolean execute;

    @Override
    int apply(ExternalServers servers, DeadLetterFilter filter, PrintWriter out) {
      DiscardResult result =
          selection
              .deadLetters(servers, true, execute)
              .discard(selection.topic, filter, selection.user, execute);
      DeadLetterReports.print(result, selection.topic, filter, selection.logTable(), json, out);
      return 0;
    }
  }
}

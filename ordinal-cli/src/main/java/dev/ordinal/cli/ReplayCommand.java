package dev.ordinal.cli;

import dev.ordinal.messaging.RefusedException;
import dev.ordinal.ops.replay.ExecutedReplay;
import dev.ordinal.ops.replay.OffsetsCsv;
import dev.ordinal.ops.replay.ReplayExecutor;
import dev.ordinal.ops.replay.ReplayLog;
import dev.ordinal.ops.replay.ReplayOutput;
import dev.ordinal.ops.replay.ReplayPlan;
import dev.ordinal.ops.replay.ReplayPlanner;
import dev.ordinal.ops.replay.ReplayReport;
import dev.ordinal.ops.replay.ReplayRequest;
import dev.ordinal.ops.replay.ReplayTarget;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import javax.sql.DataSource;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.errors.GroupIdNotFoundException;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.exception.DataAccessException;
import org.jooq.impl.DSL;
import picocli.CommandLine;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Command(
    name = "replay",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    description = {
      "Moves a consumer group's committed offsets back (or forward) on one topic, on every topic"
          + " it has read (--all-topics) or as a plan file says (--from-file), so its records are"
          + " delivered again; or sets a new group's (--into-group). A dry run by default: prints"
          + " per partition the current offset, the new one and how many records will be delivered"
          + " again; --execute applies it and records it in <schema>.replay_log.",
      "",
      "Refused while the group has active members, for offsets outside the log (the earliest and"
          + " latest offsets are named), and for unknown groups, topics and partitions.",
      "--history lists executed replays; --report shows, for one, how many records were"
          + " redelivered, how many the inbox recognised as duplicates and how many had new"
          + " effects.",
      "",
      "Servers: ORDINAL_KAFKA_BOOTSTRAP and ORDINAL_DB_URL / ORDINAL_DB_USER / ORDINAL_DB_PASSWORD"
          + " (the ones the services use); Kafka's client properties (security, SASL, SSL) from"
          + " --command-config or ORDINAL_KAFKA_CONFIG.",
      "Exit status: 0 done; 1 a failure on the way (nothing half-done is left unrecorded); 2 bad"
          + " input or a refusal, such as a missing ACL named in one sentence (DESCRIBE on the"
          + " group and topic to plan, READ on both to --execute): nothing was changed."
    })
final class ReplayCommand implements Callable<Integer> {
  @Option(names = "--group", paramLabel = "G", description = "The consumer group to move.")
  String group;

  @Option(names = "--topic", paramLabel = "T", description = "The topic whose offsets move.")
  String topic;

  @Option(
      names = "--partitions",
      split = ",",
      paramLabel = "P",
      description = "Only these partitions, e.g. 0,2 (default: all).")
  List<Integer> partitions;

  @Option(
      names = "--all-topics",
      description = "Every topic the group has committed offsets on, one replay-log entry each.")
  boolean allTopics;

  @Option(
      names = "--export",
      paramLabel = "FILE",
      description =
          "Write the dry run's new offsets to FILE as kafka-consumer-groups --export does"
              + " (topic,partition,offset); nothing is applied.")
  Path export;

  @Option(
      names = "--into-group",
      paramLabel = "NEW",
      description =
          "Plan from --group's offsets but move NEW's, a group without members or committed"
              + " offsets on those partitions; --group is never moved (nor --consumer's positions).")
  String into;

  @Option(
      names = "--json",
      description = "One JSON document on stdout (fields in docs/DESIGN.md); progress on stderr.")
  boolean json;

  @ArgGroup(
      exclusive = true,
      multiplicity = "1",
      heading = "Exactly one target, or --history, or --report:%n")
  Mode mode;

  @Option(names = "--execute", description = "Apply the plan (default: dry run).")
  boolean execute;

  @Option(names = "--id", paramLabel = "N", description = "With --report: the replay to report.")
  Long id;

  @Option(
      names = "--consumer",
      defaultValue = "billing",
      paramLabel = "NAME",
      description =
          "The inbox consumer name whose rows tell duplicates from new effects; kept with an"
              + " executed replay, read by --report, and whose stored positions in --schema a"
              + " skip moves forward with the group (default ${DEFAULT-VALUE}).")
  String consumer;

  @Option(
      names = "--schema",
      defaultValue = "billing",
      paramLabel = "SCHEMA",
      description =
          "Schema of the consumer's inbox, where replays are recorded (default ${DEFAULT-VALUE}).")
  String schema;

  @Option(
      names = "--limit",
      defaultValue = "20",
      paramLabel = "N",
      description = "With --history: the latest this many replays (default ${DEFAULT-VALUE}).")
  int limit;

  @CommandLine.Mixin CommandConfigOption kafkaConfig = new CommandConfigOption();

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  // visible for testing
  Map<String, String> env = System.getenv();
  Clock clock = Clock.systemUTC();
  String user = System.getProperty("user.name", "unknown");

  /** Exactly one: a target, or --history, or --report. */
  static final class Mode {
    @Option(names = "--history", required = true, description = "List executed replays.")
    boolean history;

    @Option(
        names = "--report",
        required = true,
        description = "Report on an executed replay (the latest, or --id N).")
    boolean report;

    @Option(names = "--to-offset", paramLabel = "N", description = "This offset.")
    Long toOffset;

    @Option(
        names = "--to-datetime",
        paramLabel = "ISO-8601",
        converter = InstantConverter.class,
        description =
            "The first record at or after this time, e.g. 2026-05-01T10:00:00Z or"
                + " 2026-05-01T12:00:00+02:00.")
    Instant toDatetime;

    @Option(
        names = "--by-duration",
        paramLabel = "PT1H",
        converter = DurationConverter.class,
        description = "The first record at or after this long ago.")
    Duration byDuration;

    @Option(
        names = "--shift-by",
        paramLabel = "-K",
        description = "The committed offset plus K (negative goes back).")
    Long shiftBy;

    @Option(names = "--to-earliest", description = "The start of the log.")
    boolean toEarliest;

    @Option(names = "--to-latest", description = "The end of the log (skips what is unread).")
    boolean toLatest;

    @Option(
        names = "--from-file",
        paramLabel = "FILE",
        description =
            "The offsets of a plan file (--export's, or kafka-consumer-groups'): only its"
                + " partitions move, one replay-log entry per topic.")
    Path fromFile;

    ReplayTarget target() {
      if (toOffset != null) {
        return new ReplayTarget.ToOffset(toOffset);
      }
      if (toDatetime != null) {
        return new ReplayTarget.ToDatetime(toDatetime);
      }
      if (byDuration != null) {
        return new ReplayTarget.ByDuration(byDuration);
      }
      if (shiftBy != null) {
        return new ReplayTarget.ShiftBy(shiftBy);
      }
      return toEarliest ? new ReplayTarget.ToEarliest() : new ReplayTarget.ToLatest();
    }
  }

  @Override
  public Integer call() {
    CommandLine cli = spec.commandLine();
    if (mode.history || mode.report) {
      String chosen = mode.history ? "--history" : "--report";
      if (execute) {
        throw refuse("--execute cannot be combined with " + chosen + ".");
      }
      if (partitions != null) {
        throw refuse("--partitions cannot be combined with " + chosen + ".");
      }
      if (mode.history && id != null || into != null) {
        throw refuse("--id goes with --report only, --into-group with a target.");
      }
      if (limit < 1 || limit > 1000) {
        throw refuse("--limit must be 1 to 1000, not " + limit + ".");
      }
      // --report reads the group's committed offsets: DESCRIBE
      return mode.history
          ? ExternalServers.run(cli, "replay --history", env, kafkaConfig.file, null, this::history)
          : ExternalServers.run(
              cli, "replay --report", env, kafkaConfig.file, r -> "DESCRIBE", this::report);
    }
    if (id != null) {
      throw refuse("--id goes with --report only.");
    }
    int scopes = (topic == null ? 0 : 1) + (allTopics ? 1 : 0) + (mode.fromFile == null ? 0 : 1);
    if (group == null || scopes != 1) {
      throw refuse(
          "A replay needs --group and exactly one of --topic, --all-topics and --from-file.");
    }
    if (group.equals(into)) { // named before any server is asked, so nothing is written
      throw refuse(
          "--into-group must name a group other than "
              + group
              + ", the one whose offsets are read.");
    }
    if (partitions != null && topic == null || export != null && execute) {
      throw refuse("--partitions needs --topic, and --export is a dry run (no --execute).");
    }
    if (mode.byDuration != null && (mode.byDuration.isNegative() || mode.byDuration.isZero())) {
      throw refuse("--by-duration must be positive, not " + mode.byDuration + ".");
    }
    if (mode.toOffset != null && mode.toOffset < 0) {
      throw refuse("--to-offset must be 0 or more, not " + mode.toOffset + ".");
    }
    if (partitions != null && partitions.stream().anyMatch(p -> p < 0)) {
      throw refuse("--partitions takes partition numbers, 0 or more: " + partitions + ".");
    }
    return ExternalServers.run(cli, "replay", env, kafkaConfig.file, this::needs, this::plan);
  }

  private CommandLine.ParameterException refuse(String sentence) {
    return new CommandLine.ParameterException(spec.commandLine(), sentence);
  }

  /**
   * The ACL operation a replay needs on a resource Kafka refused: to plan, DESCRIBE on the group
   * and the topic; to move the group's offsets (--execute), READ on both (READ implies DESCRIBE).
   */
  private String needs(String resource) {
    return execute ? "READ" : "DESCRIBE";
  }

  private List<ReplayPlan> plans(ReplayPlanner planner) {
    if (mode.fromFile != null) {
      return planner.planFromFile(group, into, mode.fromFile);
    }
    return allTopics
        ? planner.planAllTopics(group, into, mode.target())
        : List.of(
            planner.plan(
                new ReplayRequest(
                        group,
                        topic,
                        partitions == null ? null : new TreeSet<>(partitions),
                        mode.target())
                    .into(into)));
  }

  private int plan(ExternalServers servers, PrintWriter out) {
    DSLContext dsl = null;
    if (execute) {
      // the log must be writable before anything moves
      DataSource ds = servers.database(schema, true);
      ReplayLog.migrate(ds, schema);
      dsl = DSL.using(ds, SQLDialect.POSTGRES);
    }
    Admin admin = servers.admin();
    List<ReplayPlan> plans = plans(new ReplayPlanner(admin, clock, ExternalServers.TIMEOUT));
    if (export != null) {
      try {
        Files.writeString(export, OffsetsCsv.write(plans));
      } catch (IOException e) {
        throw new RefusedException("Cannot write the plan file " + export + " (" + e + ").", e);
      }
    }
    ReplayOutput view = output(out);
    view.planned(plans, export, execute);
    if (execute) {
      view.executed(
          new ReplayExecutor(admin, new ReplayLog(dsl), clock, ExternalServers.TIMEOUT)
              .executeAll(plans, user, consumer, view::progress));
    }
    return 0;
  }

  private ReplayOutput output(PrintWriter out) {
    return ReplayOutput.of(json, out, spec.commandLine().getErr(), schema);
  }

  private int history(ExternalServers servers, PrintWriter out) {
    DSLContext dsl = DSL.using(servers.database(schema, true), SQLDialect.POSTGRES);
    List<ExecutedReplay> replays = readLog(() -> new ReplayLog(dsl).history(group, topic, limit));
    output(out).history(replays, "No replay is recorded in schema " + schema + filter() + ".");
    return 0;
  }

  private int report(ExternalServers servers, PrintWriter out) {
    DSLContext dsl = DSL.using(servers.database(schema, true), SQLDialect.POSTGRES);
    ReplayLog log = new ReplayLog(dsl);
    Optional<ExecutedReplay> found =
        readLog(
            () -> id != null ? log.find(id) : log.history(group, topic, 1).stream().findFirst());
    ExecutedReplay replay =
        found.orElseThrow(
            () ->
                new RefusedException(
                    id != null
                        ? "No replay " + id + " is recorded in schema " + schema + "."
                        : "No replay is recorded in schema " + schema + filter() + "."));
    boolean named =
        spec.commandLine().getParseResult().hasMatchedOption("--consumer")
            || replay.consumer().isEmpty();
    String inboxConsumer = named ? consumer : replay.consumer().orElseThrow();
    Map<Integer, Long> committed;
    try {
      committed =
          new ReplayPlanner(servers.admin(), clock, ExternalServers.TIMEOUT)
              .committedOffsets(replay.group(), replay.topic());
    } catch (GroupIdNotFoundException e) {
      committed = Map.of();
    }
    ReplayReport report;
    try {
      report = ReplayReport.of(replay, inboxConsumer, dsl, committed);
    } catch (DataAccessException e) {
      if ("42P01".equals(e.sqlState())) {
        throw new RefusedException(
            "Schema " + schema + " has no inbox table; --schema must name the consumer's.", e);
      }
      throw e;
    }
    output(out).report(report);
    return 0;
  }

  /** Reads the replay log; a schema without one has no replay recorded. */
  private <T> T readLog(java.util.function.Supplier<T> read) {
    try {
      return read.get();
    } catch (DataAccessException e) {
      if ("42P01".equals(e.sqlState())) {
        throw new RefusedException(
            "No replay is recorded in schema " + schema + filter() + " (it has no replay_log).", e);
      }
      throw e;
    }
  }

  private String filter() {
    return (group == null ? "" : " for group " + group)
        + (topic == null ? "" : " on topic " + topic);
  }

  /** ISO-8601 with a zone or an offset: a time without one would be ambiguous. */
  static final class InstantConverter implements CommandLine.ITypeConverter<Instant> {
    @Override
    public Instant convert(String value) {
      try {
        return OffsetDateTime.parse(value).toInstant();
      } catch (DateTimeParseException e) {
        throw new CommandLine.TypeConversionException(
            "'"
                + value
                + "' is not an ISO-8601 time with a zone, e.g. 2026-05-01T10:00:00Z or"
                + " 2026-05-01T12:00:00+02:00");
      }
    }
  }
}

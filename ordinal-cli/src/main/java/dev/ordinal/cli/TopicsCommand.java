package dev.ordinal.cli;

import dev.ordinal.ops.replay.ReplayLog;
import dev.ordinal.ops.replay.TopicCopy;
import java.io.PrintWriter;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.Callable;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Command(
    name = "topics",
    mixinStandardHelpOptions = true,
    description = "Operator commands on topics.",
    subcommands = TopicsCommand.Copy.class)
final class TopicsCommand extends CommandGroup {

  @Command(
      name = "copy",
      mixinStandardHelpOptions = true,
      description = {
        "Copies the records of --topic whose timestamps fall in [--from-datetime,"
            + " --to-datetime) to --to-topic, each into the same partition with its key, value,"
            + " headers (its message id among them) and timestamp. A dry run (the offsets per"
            + " partition) unless --execute, which records the copy in <schema>.topic_copy_log.",
        "The range is the offsets Kafka's offsetsForTimes gives for the two times (as"
            + " kafka-consumer-groups --to-datetime), read with read_committed; a record inside"
            + " it whose timestamp is outside the range is left out. --to-topic must exist with"
            + " at least --topic's partitions.",
        "Exit status: 0 done (or planned); 1 a failure on the way; 2 bad input (nothing copied),"
            + " or a missing ACL named in one sentence (DESCRIBE on both topics to plan; READ on"
            + " --topic, WRITE on --to-topic to --execute)."
      })
  static final class Copy implements Callable<Integer> {
    @Option(names = "--topic", required = true, description = "The topic copied from.")
    String topic;

    @Option(names = "--to-topic", required = true, description = "The topic copied to.")
    String toTopic;

    @Option(
        names = "--from-datetime",
        required = true,
        converter = ReplayCommand.InstantConverter.class,
        description = "The first time copied, e.g. 2026-05-01T10:00:00Z.")
    Instant from;

    @Option(
        names = "--to-datetime",
        required = true,
        converter = ReplayCommand.InstantConverter.class,
        description = "The end of the range, not included.")
    Instant to;

    @Option(names = "--execute", description = "Copy; without it, a dry run.")
    boolean execute;

    @Option(
        names = "--schema",
        defaultValue = "billing",
        description = "Schema of the replay log, where the copy is recorded (default billing).")
    String schema;

    @CommandLine.Mixin CommandConfigOption kafkaConfig = new CommandConfigOption();

    @CommandLine.Spec CommandLine.Model.CommandSpec spec;
    Map<String, String> env = System.getenv();
    String user = System.getProperty("user.name", "unknown");

    @Override
    public Integer call() {
      return ExternalServers.run(
          spec.commandLine(), "topics copy", env, kafkaConfig.file, this::needs, this::copy);
    }

    /** The ACL operation the copy needs on a refused resource (READ, WRITE imply DESCRIBE). */
    private String needs(String resource) {
      return !execute ? "DESCRIBE" : resource.equals("topic " + toTopic) ? "WRITE" : "READ";
    }

    private int copy(ExternalServers servers, PrintWriter out) {
      TopicCopy copy = new TopicCopy(servers.checkedKafka());
      TopicCopy.Plan plan = copy.plan(topic, toTopic, from, to);
      out.print(plan.describe(execute));
      if (!execute) {
        return 0;
      }
      var ds = servers.database(schema, true);
      ReplayLog.migrate(ds, schema);
      TopicCopy.Copied done =
          copy.execute(plan, DSL.using(ds, SQLDialect.POSTGRES), user, l -> out.println("  " + l));
      out.printf("Copied %d records, recorded as copy %d.%n", done.records(), done.id());
      return 0;
    }
  }
}

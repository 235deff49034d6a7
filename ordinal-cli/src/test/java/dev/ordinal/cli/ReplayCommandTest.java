package dev.ordinal.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import picocli.CommandLine;

/** Bad input to {@code replay} and {@code dlq}: one sentence, exit status 2, no stack trace. */
class ReplayCommandTest extends CommandTest {
  private int replay(Map<String, String> env, String... args) {
    ReplayCommand command = new ReplayCommand();
    command.env = env;
    return execute(command, args);
  }

  private int replay(String... args) {
    return replay(Map.of(), args);
  }

  private int dlq(String... args) {
    CommandLine cli = new CommandLine(new DlqCommand());
    cli.getSubcommands()
        .values()
        .forEach(sub -> ((DlqCommand.Subcommand) sub.getCommand()).selection.env = Map.of());
    return printingHere(cli).execute(args);
  }

  private String firstErrorLine() {
    String e = err.toString();
    assertThat(e).doesNotContain("Exception").doesNotContain("\tat ");
    return e.lines().findFirst().orElse("");
  }

  /** Each refusal: the arguments, then what the one sentence says. */
  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      quoteCharacter = '"',
      value = {
        // two targets, or a target with --history, conflict
        "--group g --topic t --to-offset 1 --to-earliest|mutually exclusive",
        "--history --to-latest|mutually exclusive",
        // an unparsable time, or one without a zone (ambiguous)
        "--group g --topic t --to-datetime yesterday|'yesterday' is not an ISO-8601 time with a"
            + " zone, e.g. 2026-05-01T10:00:00Z",
        "--group g --topic t --to-datetime 2026-05-01T10:00:00|is not an ISO-8601 time with a"
            + " zone",
        "--group g --topic t --by-duration soon|'soon' is not a duration; use e.g. 30s, 2m or"
            + " PT30S",
        // a negative offset or partition
        "--group g --topic t --to-offset -1|--to-offset must be 0 or more, not -1",
        "--group g --topic t --partitions 0,-2 --to-earliest|--partitions takes partition"
            + " numbers, 0 or more",
        "--group g --topic t --partitions 0,x --to-earliest|--partitions",
        // options that do not go together
        "--history --execute|--execute cannot be combined with --history.",
        "--report --partitions 1|--partitions cannot be combined with --report.",
        "--group g --topic t --to-earliest --id 3|--id goes with --report only.",
        "--topic t --to-earliest|needs --group and exactly one of --topic, --all-topics and"
            + " --from-file.",
        "--group g --topic t --all-topics --to-earliest|exactly one of --topic, --all-topics",
        "--group g --all-topics --partitions 1 --to-earliest|--partitions needs --topic",
        "--group g --topic t --to-earliest --export p.csv --execute|--export is a dry run",
        "--group g --from-file p.csv --to-earliest|mutually exclusive"
      })
  void badInputIsRefusedInOneSentence(String args, String sentence) {
    assertThat(replay(args.split(" "))).isEqualTo(2);
    assertThat(firstErrorLine()).contains(sentence);
  }

  @Test
  void noTargetIsRefusedNamingTheChoices() {
    assertThat(replay("--group", "g", "--topic", "t")).isEqualTo(2);
    assertThat(firstErrorLine())
        .contains("Missing required argument")
        .contains("--to-offset")
        .contains("--history");
  }

  @Test
  void aNegativeDurationIsRefused() {
    assertThat(replay("--group", "g", "--topic", "t", "--by-duration", "-PT1H")).isEqualTo(2);
    assertThat(firstErrorLine()).isEqualTo("--by-duration must be positive, not PT-1H.");
  }

  @Test
  void withoutExternalServersItRefusesBeforeConnectingToAnything() {
    // a negative shift parses: the refusal is about the servers
    assertThat(replay("--group", "g", "--topic", "t", "--shift-by", "-5")).isEqualTo(2);
    assertThat(firstErrorLine())
        .isEqualTo(
            "ordinal: replay needs a PostgreSQL server and a Kafka cluster: set ORDINAL_DB_URL"
                + " (with ORDINAL_DB_USER and ORDINAL_DB_PASSWORD) and ORDINAL_KAFKA_BOOTSTRAP or"
                + " db.url and kafka.bootstrap in the ORDINAL_CONFIG file (./ordinal up starts a"
                + " local stack to point it at).");
    assertThat(out.toString()).isEmpty();
  }

  /**
   * --into-group naming --group itself, and --into-group with --history or --report: refused before
   * any server is asked (no server is named here, so one asked would refuse otherwise).
   */
  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      value = {
        "--group g --topic t --into-group g --to-earliest --execute|--into-group must name a group"
            + " other than g, the one whose offsets are read.",
        "--group g --all-topics --into-group g --shift-by -2|--into-group must name a group other"
            + " than g, the one whose offsets are read.",
        "--history --group g --into-group h|--id goes with --report only, --into-group with a"
            + " target.",
        "--report --into-group h|--id goes with --report only, --into-group with a target."
      })
  void intoGroupItselfOrWithHistoryIsRefusedBeforeAnyServer(String args, String sentence) {
    assertThat(replay(args.split(" "))).isEqualTo(2);
    assertThat(firstErrorLine()).isEqualTo(sentence);
    assertThat(err.toString()).doesNotContain("needs a PostgreSQL server");
    assertThat(out.toString()).isEmpty();
  }

  @Test
  void halfTheServersAreRefusedNamingTheMissingOne() {
    assertThat(replay(Map.of("ORDINAL_DB_URL", "jdbc:postgresql://localhost:1/x"), "--history"))
        .isEqualTo(2);
    assertThat(firstErrorLine())
        .isEqualTo(
            "ordinal: replay --history needs a Kafka cluster: set ORDINAL_KAFKA_BOOTSTRAP or"
                + " kafka.bootstrap in the ORDINAL_CONFIG file (./ordinal up starts a local stack"
                + " to point it at).");
  }

  @Test
  void dlqNeedsATopicAValidFilterAndExternalServers() {
    assertThat(dlq("list")).isEqualTo(2);
    assertThat(firstErrorLine()).contains("Missing required option: '--topic=T.dlq'");
    err.getBuffer().setLength(0);
    assertThat(dlq("redrive", "--topic", "t.dlq", "--where", "colour=red")).isEqualTo(2);
    assertThat(firstErrorLine())
        .startsWith("ordinal: The filter 'colour=red' names no known field; use one of");
    err.getBuffer().setLength(0);
    assertThat(dlq("show", "--topic", "t.dlq", "--where", "offset=x")).isEqualTo(2);
    assertThat(firstErrorLine()).isEqualTo("ordinal: offset=x is not a number; offset takes one");
    err.getBuffer().setLength(0);
    assertThat(dlq("list", "--topic", "t.dlq")).isEqualTo(2);
    assertThat(firstErrorLine())
        .startsWith("ordinal: dlq list needs a PostgreSQL server and a Kafka cluster: set");
  }
}

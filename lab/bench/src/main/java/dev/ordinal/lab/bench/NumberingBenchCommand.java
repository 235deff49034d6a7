package dev.ordinal.lab.bench;

import dev.ordinal.lab.devstack.Stack;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code bench numbering}: gapless numbering next to the single-row counter update rate. */
@Command(
    name = "numbering",
    mixinStandardHelpOptions = true,
    description = {
      "Gapless numbering next to its limit, measured in the same run on the same PostgreSQL"
          + " (the embedded one durable: fsync=on, synchronous_commit=on): just-in-time"
          + " reservations/s on one series vs the single-row counter update rate (goal >= 0.8);"
          + " and, with one client, a reservation's time, client CPU and WAL bytes next to a"
          + " counter update's (the WAL also by relation, from pg_walinspect, installed if"
          + " missing). Rounds alternate the measurements; medians are reported. About a"
          + " minute with the drafts' creation; --quick about 30 s. The integrator part is"
          + " `bench billing`."
    })
final class NumberingBenchCommand extends ScenarioCommand<NumberingBench.Settings> {
  @Option(names = "--quick", description = "One round with shorter windows; explicit options win.")
  boolean quick;

  @Option(
      names = "--clients",
      description = "Closed-loop clients of every measurement (default 8).")
  Integer clients;

  @Option(names = "--rounds", description = "Rounds; medians are reported (default 3, --quick 1).")
  Integer rounds;

  @Mixin MarkdownOut.Table out;

  NumberingBenchCommand() {
    super(
        NumberingBench.Settings.DEFAULT,
        NumberingBench.Settings.QUICK,
        NumberingBenchCommand::section);
  }

  @Override
  NumberingBench.Settings settings() {
    NumberingBench.Settings d = defaults();
    return new NumberingBench.Settings(
        pick("--clients", clients, d.clients(), 1, 256),
        d.warmup(),
        d.measure(),
        pick("--rounds", rounds, d.rounds(), 1, 20));
  }

  static List<String> section(Stack stack, NumberingBench.Settings s, Consumer<String> p)
      throws Exception {
    NumberingBench.Report report = NumberingBench.run(BenchRun.database(stack), s, p);
    Map<String, String> facts = NumberingBench.facts(report.database(), BenchRun.mode(stack));
    facts.put(
        "Load",
        String.format(
            "%d closed-loop clients; %d round(s) of %d s windows after %d s warm-up",
            s.clients(), s.rounds(), s.measure().toSeconds(), s.warmup().toSeconds()));
    return NumberingBench.table("Numbering (" + BenchRun.now() + ")", report.rows(), facts);
  }
}

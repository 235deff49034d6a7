package dev.ordinal.lab.bench;

import static dev.ordinal.lab.bench.BenchOptions.assertRefused;
import static dev.ordinal.lab.bench.BenchOptions.parsed;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class BenchCommandTest {
  private static RelayBench.Settings relaySettings(String... args) {
    RelayBenchCommand relay = parsed(new RelayBenchCommand(), args);
    return relay.settings();
  }

  @Test
  void withoutOptionsTheRelayBenchRunsItsDefaults() {
    assertThat(relaySettings()).isEqualTo(RelayBench.Settings.DEFAULT);
  }

  @Test
  void quickShortensTheWindowsAndExplicitOptionsStillWin() {
    RelayBench.Settings s = relaySettings("--quick", "--rate", "300", "--fast-poll-ms", "10");
    assertThat(s.latencyMeasure()).isEqualTo(RelayBench.Settings.QUICK.latencyMeasure());
    assertThat(s.idle()).isEqualTo(Duration.ofSeconds(4));
    assertThat(s.rounds()).isEqualTo(1);
    assertThat(s.rate()).isEqualTo(300);
    assertThat(s.fastPollInterval()).isEqualTo(Duration.ofMillis(10));
    assertThat(s.defaultPollInterval()).isEqualTo(Duration.ofMillis(500));
  }

  @Test
  void withoutASubcommandBenchRunsEveryScenarioInOrder() {
    assertThat(BenchCommand.SCENARIOS.stream().map(Scenario::name))
        .containsExactly(
            "orders", "relay", "connect", "numbering", "billing", "lanes", "e2e", "security");
    BenchCommand bench = parsed(new BenchCommand());
    CommandLine cli = new CommandLine(bench);
    assertThat(BenchCommand.chosen(BenchCommand.SCENARIOS, bench.only, cli))
        .isEqualTo(BenchCommand.SCENARIOS);
  }

  @Test
  void onlyPicksScenariosInTheOrderGivenOnceEach() {
    BenchCommand bench = parsed(new BenchCommand(), "--quick", "--only", "e2e,lanes,e2e");
    assertThat(bench.quick).isTrue();
    List<Scenario> chosen =
        BenchCommand.chosen(BenchCommand.SCENARIOS, bench.only, new CommandLine(bench));
    assertThat(chosen.stream().map(Scenario::name)).containsExactly("e2e", "lanes");
  }

  @Test
  void onlyRefusesAnUnknownScenarioInOneSentence() {
    BenchCommand bench = parsed(new BenchCommand(), "--only", "relay,speed");
    CommandLine cli = new CommandLine(bench);
    assertThatThrownBy(() -> BenchCommand.chosen(BenchCommand.SCENARIOS, bench.only, cli))
        .isInstanceOf(CommandLine.ParameterException.class)
        .hasMessage(
            "--only takes scenario names among [orders, relay, connect, numbering, billing, lanes,"
                + " e2e, security], not"
                + " 'speed'");
  }

  @Test
  void theAllScenariosQuickRelayIsShorterThanRelayQuick() {
    RelayBench.Settings all = BenchCommand.RELAY_ALL_QUICK;
    RelayBench.Settings quick = RelayBench.Settings.QUICK;
    assertThat(all.idle()).isEqualTo(Duration.ofSeconds(2));
    assertThat(all.latencyMeasure()).isEqualTo(Duration.ofSeconds(3));
    assertThat(all.throughputWindow()).isEqualTo(Duration.ofSeconds(3));
    assertThat(all.rate()).isEqualTo(quick.rate());
    assertThat(all.clients()).isEqualTo(quick.clients());
  }

  @Test
  void ordersQuickIsOneShortRoundAndExplicitOptionsWin() {
    OrdersBenchCommand orders = parsed(new OrdersBenchCommand(), "--quick", "--clients", "4");
    OrderWriteBench.Settings s = orders.settings();
    assertThat(s.clients()).isEqualTo(4);
    assertThat(s.rounds()).isEqualTo(1);
    assertThat(s.measure()).isEqualTo(Duration.ofSeconds(2));
    assertThat(s.warmup()).isEqualTo(Duration.ofSeconds(1));
  }

  @Test
  void ordersWithoutOptionsKeepsItsDefaults() {
    assertThat(parsed(new OrdersBenchCommand()).settings())
        .isEqualTo(
            new OrderWriteBench.Settings(8, Duration.ofSeconds(2), Duration.ofSeconds(5), 3));
  }

  @Test
  void lanesDefaultsQuickAndOptions() {
    assertThat(parsed(new LanesBenchCommand()).settings()).isEqualTo(LanesBench.Settings.DEFAULT);
    assertThat(LanesBench.Settings.DEFAULT.bulk()).isEqualTo(4_000);

    LanesBench.Settings s = parsed(new LanesBenchCommand(), "--quick", "--rate", "10").settings();
    assertThat(s.rounds()).isEqualTo(1);
    assertThat(s.rate()).isEqualTo(10);
    assertThat(s.bulk()).isEqualTo(4_000);
  }

  @Test
  void lanesRefusesAZeroRateNamingTheOption() {
    LanesBenchCommand lanes = parsed(new LanesBenchCommand(), "--rate", "0");
    assertRefused(lanes::settings, "--rate must be 1 to 1,000 per second, not 0");
  }

  @Test
  void e2eDefaultsQuickAndOptions() {
    assertThat(parsed(new E2eBenchCommand()).settings()).isEqualTo(E2eBench.Settings.DEFAULT);
    assertThat(E2eBench.Settings.DEFAULT.rate()).isEqualTo(50);

    E2eBench.Settings s = parsed(new E2eBenchCommand(), "--quick", "--rate", "80").settings();
    assertThat(s.rate()).isEqualTo(80);
    assertThat(s.measure()).isEqualTo(Duration.ofSeconds(8));
    assertThat(s.warmup()).isEqualTo(Duration.ofSeconds(2));
  }

  @Test
  void e2eRefusesOutOfRangeWindowsNamingTheOption() {
    E2eBenchCommand e2e = parsed(new E2eBenchCommand(), "--seconds", "0");
    assertRefused(e2e::settings, "--seconds must be 1 to 600, not 0");

    E2eBenchCommand negative = parsed(new E2eBenchCommand(), "--warmup", "-1");
    assertRefused(negative::settings, "--warmup must be 0 to 600 seconds, not -1");
  }

  @Test
  void connectIsASubcommandWithItsDefaultsQuickAndOptions() {
    CommandLine bench = new CommandLine(new BenchCommand());
    assertThat(bench.getSubcommands()).containsKey("connect");
    assertThat(parsed(new ConnectBenchCommand()).settings())
        .isEqualTo(ConnectBench.Settings.DEFAULT);
    assertThat(ConnectBench.Settings.DEFAULT)
        .isEqualTo(new ConnectBench.Settings(30_000, 8, 50, 3));

    ConnectBench.Settings quick =
        parsed(new ConnectBenchCommand(), "--quick", "--rounds", "2").settings();
    assertThat(quick).isEqualTo(new ConnectBench.Settings(10_000, 8, 50, 2));
    assertThat(parsed(new ConnectBenchCommand(), "--events", "5000").settings().events())
        .isEqualTo(5_000);
  }

  @Test
  void connectRefusesATinyBacklogNamingTheOption() {
    ConnectBenchCommand connect = parsed(new ConnectBenchCommand(), "--events", "10");
    assertRefused(connect::settings, "--events must be 1000 to 1000000, not 10");
  }

  @Test
  void theRunTimeTableFollowsTheSectionsWithSecondsHostStealAndWalSyncPerScenario() {
    List<List<String>> doc =
        BenchCommand.withTimings(
            List.of(List.of("## orders")),
            List.of(
                BenchCommand.timingRow("orders", 629.4, "3.1", "0.42"),
                BenchCommand.timingRow("relay", 723.6, "n/a", "n/a")));
    assertThat(doc).hasSize(2);
    assertThat(doc.get(0)).containsExactly("## orders");
    assertThat(doc.get(1).get(0)).isEqualTo("## Run time");
    assertThat(doc.get(1))
        .endsWith(
            "| scenario | seconds | stolen (%) | WAL sync (ms) |",
            "|---|---:|---:|---:|", "| orders | 629 | 3.1 | 0.42 |", "| relay | 724 | n/a | n/a |");
  }

  @Test
  void everySubcommandRunsItsScenarioWithTheQuickAndOutItParsed() {
    List<String> names =
        List.of("orders", "relay", "connect", "numbering", "billing", "lanes", "e2e", "security");
    assertThat(new CommandLine(new BenchCommand()).getSubcommands().keySet())
        .containsExactlyElementsOf(names);
    for (String name : names) {
      CommandLine bench = new CommandLine(new BenchCommand());
      bench.parseArgs(name);
      ScenarioCommand<?> plain = bench.getSubcommands().get(name).getCommand();
      assertThat(plain.quick()).as(name).isFalse();
      assertThat(plain.out()).as(name).isNull();

      bench = new CommandLine(new BenchCommand());
      bench.parseArgs(name, "--quick", "--out", "bench-" + name + ".md");
      ScenarioCommand<?> given = bench.getSubcommands().get(name).getCommand();
      assertThat(given.quick()).as(name).isTrue();
      assertThat(given.out()).isEqualTo(Path.of("bench-" + name + ".md"));
    }
  }

  @Test
  void theHelpOfOnlyListsEveryScenario() {
    java.io.StringWriter help = new java.io.StringWriter();
    CommandLine cli = new CommandLine(new BenchCommand());
    cli.usage(new java.io.PrintWriter(help));
    assertThat(help.toString().replaceAll("\\s+", " "))
        .contains(
            "in the order given (orders, relay, connect, numbering, billing, lanes, e2e,"
                + " security)");
  }

  @Test
  void benchOnlyTakesAScenarioThatIsAlsoASubcommandsName() {
    // as under ./ordinal, whose root command allows it
    CommandLine cli =
        new CommandLine(new BenchCommand()).setAllowSubcommandsAsOptionParameters(true);
    CommandLine.ParseResult parsed = cli.parseArgs("--only", "billing", "--quick");
    BenchCommand bench = (BenchCommand) parsed.commandSpec().userObject();
    assertThat(bench.only).containsExactly("billing");
    assertThat(bench.quick).isTrue();
    assertThat(parsed.hasSubcommand()).as("billing not run as a subcommand").isFalse();
  }
}

package dev.ordinal.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ordinal.billing.BillingSettings;
import dev.ordinal.lab.devstack.StackConfig;
import dev.ordinal.lab.devstack.StackMode;
import dev.ordinal.messaging.ConfigurationException;
import dev.ordinal.relay.RelaySettings;
import dev.ordinal.runtime.settings.SettingValues;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** Options first, then the environment, then the ORDINAL_CONFIG file, then the default. */
class SettingsTest {

  private static BillingCommand parse(Map<String, String> env, String... args) {
    CommandLine cli = Main.commandLine(env);
    CommandLine.ParseResult parsed = cli.parseArgs(prepend("billing", args));
    return (BillingCommand) parsed.subcommand().commandSpec().userObject();
  }

  /** {@code text} in the file {@code name} of {@code dir}. */
  private static Path file(Path dir, String name, String text) throws IOException {
    Path file = dir.resolve(name);
    Files.writeString(file, text);
    return file;
  }

  private static String[] prepend(String first, String... rest) {
    String[] all = new String[rest.length + 1];
    all[0] = first;
    System.arraycopy(rest, 0, all, 1, rest.length);
    return all;
  }

  @Test
  void theCommandLineWinsThenTheEnvironmentThenTheFileThenTheDefault(@TempDir Path dir)
      throws Exception {
    Path file =
        file(
            dir,
            "ordinal.properties",
            "billing.concurrency=6\nbilling.group=from-file\nbilling.issuer-workers=7\n"
                + "billing.management-port=9999\n");
    Map<String, String> env =
        Map.of(
            "ORDINAL_CONFIG", file.toString(),
            "ORDINAL_BILLING_CONCURRENCY", "8",
            "ORDINAL_BILLING_INBOX_RETENTION", "P40D");

    SettingValues fromAll = parse(env, "--issuer-workers", "9").values();
    assertThat(fromAll.get(BillingSettings.ISSUER_WORKERS)).as("option over file").isEqualTo(9);
    assertThat(fromAll.get(BillingSettings.CONCURRENCY)).as("environment over file").isEqualTo(8);
    assertThat(fromAll.get(BillingSettings.GROUP)).as("file over default").isEqualTo("from-file");
    assertThat(fromAll.get(BillingSettings.INBOX_RETENTION))
        .as("environment over default")
        .hasDays(40);
    assertThat(fromAll.get(BillingSettings.MANAGEMENT_PORT)).isEqualTo(9999);
    assertThat(fromAll.get(BillingSettings.REPLAY_WINDOW)).as("the default").hasDays(7);

    SettingValues defaults = parse(Map.of()).values();
    assertThat(defaults.get(BillingSettings.CONCURRENCY)).isEqualTo(4);
    assertThat(defaults.get(BillingSettings.GROUP)).isEqualTo("ordinal-billing");
    assertThat(defaults.get(BillingSettings.MANAGEMENT_PORT)).isEqualTo(9412);
  }

  @Test
  void theServersComeFromTheFileUnderTheirVariableNamesAndAVariableWins(@TempDir Path dir)
      throws Exception {
    Path file =
        file(
            dir,
            "servers.properties",
            "db.url=jdbc:postgresql://db1:5432/app\ndb.user=billing\ndb.password=from-file\n"
                + "kafka.bootstrap=kafka1:9092\n");
    Map<String, String> env =
        Settings.environment(
            Map.of("ORDINAL_CONFIG", file.toString(), "ORDINAL_DB_PASSWORD", "from-env"));
    StackConfig stack = StackConfig.fromEnvironment(env);
    assertThat(stack.mode()).isEqualTo(StackMode.EXTERNAL);
    assertThat(stack.jdbcUrl()).isEqualTo("jdbc:postgresql://db1:5432/app");
    assertThat(stack.dbUser()).isEqualTo("billing");
    assertThat(stack.dbPassword()).isEqualTo("from-env");
    assertThat(stack.kafkaBootstrap()).isEqualTo("kafka1:9092");
  }

  @Test
  void aFileThatCannotBeReadIsOneSentenceNamingTheVariable(@TempDir Path dir) {
    Path missing = dir.resolve("nope.properties");
    assertThatThrownBy(() -> Settings.environment(Map.of("ORDINAL_CONFIG", missing.toString())))
        .isInstanceOf(ConfigurationException.class)
        .hasMessageStartingWith("ORDINAL_CONFIG names " + missing + ", which cannot be read");
  }

  @Test
  void aKeyOfTheFileIsTheVariableOfTheSameName() {
    assertThat(Settings.variable("billing.inbox-retention"))
        .isEqualTo("ORDINAL_BILLING_INBOX_RETENTION");
    assertThat(Settings.variable("db.url")).isEqualTo("ORDINAL_DB_URL");
    assertThat(Settings.variable("relay.setup-sql.role")).isEqualTo("ORDINAL_RELAY_SETUP_SQL_ROLE");
  }

  private final StringWriter out = new StringWriter();
  private final StringWriter err = new StringWriter();

  private int run(Map<String, String> env, String... args) {
    CommandLine cli = Main.commandLine(env);
    cli.setOut(new PrintWriter(out));
    cli.setErr(new PrintWriter(err));
    return cli.execute(args);
  }

  @Test
  void aMisspelledKeyOfTheFileIsRefusedNamingItAndTheClosestSettingBeforeAnythingRuns(
      @TempDir Path dir) throws Exception {
    Path file =
        file(dir, "x.properties", "db.url=jdbc:postgresql://db1:5432/app\nbilling.concurency=8\n");

    assertThat(run(Map.of("ORDINAL_CONFIG", file.toString()), "billing")).isEqualTo(2);
    assertThat(err.toString().lines().toList())
        .containsExactly(
            "ordinal: "
                + file
                + " (ORDINAL_CONFIG) has a key that is not a setting: billing.concurency (did you"
                + " mean billing.concurrency?); nothing was started.");
    assertThat(out.toString()).isEmpty();
  }

  @Test
  void everyUnknownKeyIsNamedAndOnlyASlipGetsASuggestion(@TempDir Path dir) throws Exception {
    Path file = file(dir, "x.properties", "relay.shcema=orders\nnonsense=1\nbilling.group=b\n");

    assertThat(run(Map.of("ORDINAL_CONFIG", file.toString()), "relay", "setup-sql")).isEqualTo(2);
    assertThat(err.toString().lines().toList())
        .containsExactly(
            "ordinal: "
                + file
                + " (ORDINAL_CONFIG) has keys that are not settings: nonsense, relay.shcema (did"
                + " you mean relay.schema?); nothing was started.");
  }

  @Test
  void helpIsShownWhateverTheFileHolds(@TempDir Path dir) throws Exception {
    Path file = file(dir, "x.properties", "billing.concurency=8\n");
    assertThat(run(Map.of("ORDINAL_CONFIG", file.toString()), "billing", "--help")).isZero();
    assertThat(out.toString()).contains("Usage: ordinal billing");
  }

  @Test
  void aFileThatCannotBeReadIsRefusedBeforeAnyCommandRuns(@TempDir Path dir) {
    Path missing = dir.resolve("nope.properties");
    assertThat(run(Map.of("ORDINAL_CONFIG", missing.toString()), "relay", "setup-sql"))
        .isEqualTo(2);
    assertThat(err.toString().lines().toList())
        .singleElement()
        .asString()
        .startsWith("ordinal: ORDINAL_CONFIG names " + missing + ", which cannot be read");
  }

  @Test
  void everyOptionOfEveryCommandIsAKeyAndSoAreTheServers(@TempDir Path dir) throws Exception {
    Set<String> known = Settings.knownKeys(Main.commandLine(Map.of()));
    assertThat(known)
        .contains(
            "db.url",
            "db.user",
            "db.password",
            "kafka.bootstrap",
            "billing.concurrency",
            "billing.management-port",
            "order-service.http-threads",
            "relay.schema",
            "relay.republish.from",
            "relay.setup-sql.role",
            "monitor.deadline",
            "lag.window")
        .doesNotContain("billing.help", "billing.version");

    Path file =
        file(
            dir,
            "all.properties",
            known.stream().map(k -> k + "=x").collect(Collectors.joining("\n")));
    Settings.checkFile(Map.of("ORDINAL_CONFIG", file.toString()), known);
    // a key is compared as its variable is
    Files.writeString(file, "BILLING.INBOX_RETENTION=P40D\n");
    Settings.checkFile(Map.of("ORDINAL_CONFIG", file.toString()), known);
  }

  private static SettingValues relay(Map<String, String> env, String... args) {
    CommandLine.ParseResult parsed = Main.commandLine(env).parseArgs(prepend("relay", args));
    return ((RelayCommand) parsed.subcommand().commandSpec().userObject()).values();
  }

  @Test
  void flagsAndListsComeFromTheirOptionsTheEnvironmentOrTheirDefaults() {
    assertThat(relay(Map.of()).get(RelaySettings.CREATE_PUBLICATION)).isTrue();
    assertThat(relay(Map.of(), "--no-create-publication").get(RelaySettings.CREATE_PUBLICATION))
        .isFalse();
    assertThat(
            relay(Map.of("ORDINAL_RELAY_CREATE_PUBLICATION", "false"))
                .get(RelaySettings.CREATE_PUBLICATION))
        .isFalse();
    assertThat(
            relay(Map.of("ORDINAL_RELAY_CREATE_PUBLICATION", "false"), "--create-publication")
                .get(RelaySettings.CREATE_PUBLICATION))
        .isTrue();
    assertThat(relay(Map.of(), "--create-publication").get(RelaySettings.CREATE_PUBLICATION))
        .isTrue();
    assertThat(relay(Map.of()).get(RelaySettings.SCHEMAS)).containsExactly("orders");
    assertThat(
            relay(Map.of(), "--schema", "orders,billing", "--schema", "audit")
                .get(RelaySettings.SCHEMAS))
        .containsExactly("orders", "billing", "audit");
    assertThat(relay(Map.of("ORDINAL_RELAY_SCHEMA", "orders,billing")).get(RelaySettings.SCHEMAS))
        .containsExactly("orders", "billing");
    assertThat(relay(Map.of()).get(RelaySettings.SKIP_EVENTS)).isEmpty();
    assertThat(relay(Map.of("ORDINAL_RELAY_HEARTBEAT", "2s")).get(RelaySettings.HEARTBEAT))
        .hasSeconds(2);
  }
}

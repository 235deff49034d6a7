package dev.ordinal.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The product's commands never start servers of their own: with none configured, each refuses in
 * one sentence that names the settings and says how to get a local stack, with exit status 2 and
 * nothing started.
 */
class NoServersTest extends CommandTest {
  private int run(Object command, String... args) {
    picocli.CommandLine cli = printingHere(Main.commandLine(Map.of()));
    // the subcommand instance the test configured replaces the one picocli made
    picocli.CommandLine sub = printingHere(new picocli.CommandLine(command));
    sub.setExecutionExceptionHandler(cli.getExecutionExceptionHandler());
    return sub.execute(args);
  }

  private static final String BOTH =
      " needs a PostgreSQL server and a Kafka cluster: set ORDINAL_DB_URL (with ORDINAL_DB_USER"
          + " and ORDINAL_DB_PASSWORD) and ORDINAL_KAFKA_BOOTSTRAP or db.url and kafka.bootstrap"
          + " in the ORDINAL_CONFIG file (./ordinal up starts a local stack to point it at).";

  private void assertRefused(int status, String sentence) {
    assertThat(status).isEqualTo(2);
    assertThat(err.toString().lines().toList()).containsExactly("ordinal: " + sentence);
    assertThat(out.toString()).isEmpty();
  }

  /** Each service that has Kafka clients and a database. */
  static Stream<Arguments> servicesOnBothServers() {
    return Stream.of(
        Arguments.of("billing", new BillingCommand(), new String[0]),
        Arguments.of("relay", new RelayCommand(), new String[0]),
        Arguments.of("console", new ConsoleCommand(), new String[0]));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("servicesOnBothServers")
  void aServiceOnBothServersRefuses(String name, ServiceCommand c, String[] args) {
    c.env = Map.of();
    assertRefused(run(c, args), name + BOTH);
  }

  @Test
  void orderServiceRefusesWithoutADatabaseAndAsksForNoKafka() {
    OrderServiceCommand c = new OrderServiceCommand();
    c.env = Map.of();
    assertRefused(
        run(c, "--auth", "none"),
        "order-service needs a PostgreSQL server: set ORDINAL_DB_URL (with ORDINAL_DB_USER and"
            + " ORDINAL_DB_PASSWORD) or db.url in the ORDINAL_CONFIG file (./ordinal up starts a"
            + " local stack to point it at).");
  }

  @Test
  void theMonitorRefusesWithoutKafka() {
    MonitorCommand c = new MonitorCommand();
    c.env = Map.of();
    assertRefused(
        run(c),
        "monitor needs a Kafka cluster: set ORDINAL_KAFKA_BOOTSTRAP or kafka.bootstrap in the"
            + " ORDINAL_CONFIG file (./ordinal up starts a local stack to point it at).");
  }

  @Test
  void theAuditRefusesWithoutADatabase() {
    AuditCommand c = new AuditCommand();
    c.billing.env = Map.of();
    assertRefused(
        run(c),
        "audit needs a PostgreSQL server: set ORDINAL_DB_URL (with ORDINAL_DB_USER and"
            + " ORDINAL_DB_PASSWORD) or db.url in the ORDINAL_CONFIG file (./ordinal up starts a"
            + " local stack to point it at).");
  }

  @Test
  void aBadOptionIsNamedBeforeTheMissingServers() {
    BillingCommand c = new BillingCommand();
    c.env = Map.of();
    assertThat(run(c, "--concurrency", "0")).isEqualTo(2);
    assertThat(err.toString().lines().findFirst().orElse(""))
        .isEqualTo("--concurrency must be 1 to 256, not 0");
  }
}

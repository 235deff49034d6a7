package dev.ordinal.cli;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaCall;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.properties.HasOwner;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import dev.ordinal.billing.InvoiceHandler;
import dev.ordinal.billing.InvoiceIssuer;
import dev.ordinal.billing.PaymentCollector;
import dev.ordinal.messaging.inbox.InboxConsumer;
import dev.ordinal.messaging.inbox.InboxRetention;
import dev.ordinal.messaging.outbox.OutboxRetention;
import dev.ordinal.monitor.InvariantMonitor;
import dev.ordinal.order.OrderHttpServer;
import dev.ordinal.relay.OutboxRelay;
import dev.ordinal.relay.PollingRelay;
import dev.ordinal.runtime.Supervisor;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The architecture as rules over the compiled main classes: each service is put together in one
 * place, its runtime class; services never import each other; the libraries import no service; a
 * module's {@code internal} package is its own. The event contract ({@code dev.ordinal.contracts})
 * is a library the services share, not a service, and depends on no other Ordinal package.
 *
 * <p>The benchmarks ({@code dev.ordinal.cli.bench}) that measure one part against its limit (the
 * relay engine's settings, the issuer at several calls in flight, the inbox's overhead, priority
 * lanes, numbering) construct that part; the ones that run services ({@code bench e2e}, the HTTP
 * figure of {@code bench orders}) start them through their runtime classes.
 */
class ArchitectureTest {
  static final String CLI = "dev.ordinal.cli..";
  static final String BENCH = "dev.ordinal.cli.bench..";
  static final List<String> SERVICES =
      List.of(
          "dev.ordinal.order..",
          "dev.ordinal.relay..",
          "dev.ordinal.billing..",
          "dev.ordinal.monitor..");

  static JavaClasses classes;

  @BeforeAll
  static void importClasses() {
    classes =
        new ClassFileImporter()
            // the other modules' main classes come as jars (or class folders) of the reactor
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("dev.ordinal");
  }

  /** What only a service's runtime class may construct: its loops and their servers. */
  static final Class<?>[] SERVICE_INTERNALS = {
    InvoiceIssuer.class,
    PaymentCollector.class,
    InvoiceHandler.class,
    InboxConsumer.class,
    InboxRetention.class,
    OutboxRetention.class,
    OutboxRelay.class,
    PollingRelay.class,
    OrderHttpServer.class,
    InvariantMonitor.class,
    Supervisor.class
  };

  @Test
  void theCommandLineConstructsNoServiceInternals() {
    for (Class<?> internal : SERVICE_INTERNALS) {
      ArchRule rule =
          noClasses()
              .that()
              .resideInAPackage(CLI)
              .and()
              .resideOutsideOfPackage(BENCH)
              .should()
              .callConstructorWhere(
                  JavaCall.Predicates.target(
                      HasOwner.Predicates.With.owner(JavaClass.Predicates.equivalentTo(internal))))
              .because(
                  "a service is put together only by its runtime class (OrderServiceApp,"
                      + " RelayApp, BillingApp, MonitorApp)");
      rule.check(classes);
    }
  }

  @Test
  void billingIsStartedOnlyByItsRuntimeClass() {
    noClasses()
        .that()
        .resideInAPackage(CLI)
        .and()
        .resideOutsideOfPackage(BENCH)
        .should()
        .callMethod(
            dev.ordinal.billing.BillingService.class,
            "start",
            dev.ordinal.messaging.inbox.InboxConsumerConfig.class,
            org.jooq.DSLContext.class,
            io.micrometer.core.instrument.MeterRegistry.class,
            java.time.Clock.class)
        .because("billing is wired in exactly one place, BillingApp")
        .check(classes);
  }

  @Test
  void servicesNeverImportEachOther() {
    for (String service : SERVICES) {
      String[] others = SERVICES.stream().filter(s -> !s.equals(service)).toArray(String[]::new);
      noClasses()
          .that()
          .resideInAPackage(service)
          .should()
          .dependOnClassesThat()
          .resideInAnyPackage(others)
          .because("services talk through Kafka topics, not through each other's classes")
          .check(classes);
    }
  }

  @Test
  void theLibrariesImportNoService() {
    String[] servicesAndCli =
        java.util.stream.Stream.concat(SERVICES.stream(), java.util.stream.Stream.of(CLI))
            .toArray(String[]::new);
    for (String library :
        List.of("dev.ordinal.messaging..", "dev.ordinal.runtime..", "dev.ordinal.infra..")) {
      noClasses()
          .that()
          .resideInAPackage(library)
          .should()
          .dependOnClassesThat()
          .resideInAnyPackage(servicesAndCli)
          .because("the libraries serve every service and know none of them")
          .check(classes);
    }
  }

  @Test
  void theContractsDependOnNoOtherOrdinalPackage() {
    noClasses()
        .that()
        .resideInAPackage("dev.ordinal.contracts..")
        .should()
        .dependOnClassesThat(
            JavaClass.Predicates.resideInAPackage("dev.ordinal..")
                .and(JavaClass.Predicates.resideOutsideOfPackage("dev.ordinal.contracts..")))
        .because(
            "the event contract is a library every producer and consumer shares (as debezium-api):"
                + " it depends on Jackson only")
        .check(classes);
  }

  @Test
  void theRuntimeKnowsNothingOfMessagingOrTheStack() {
    noClasses()
        .that()
        .resideInAPackage("dev.ordinal.runtime..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage("dev.ordinal.messaging..", "dev.ordinal.infra..")
        .check(classes);
  }

  @Test
  void otherModulesUseOnlyAServicesPublicPackage() {
    for (String module :
        List.of("order", "relay", "billing", "monitor", "messaging", "runtime", "infra")) {
      String internal = "dev.ordinal." + module + ".internal..";
      noClasses()
          .that()
          .resideOutsideOfPackage("dev.ordinal." + module + "..")
          .should()
          .dependOnClassesThat()
          .resideInAPackage(internal)
          .because("a module's internal package is its own")
          .check(classes);
    }
  }
}

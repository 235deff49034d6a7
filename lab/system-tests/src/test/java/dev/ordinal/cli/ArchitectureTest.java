package dev.ordinal.cli;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.Dependency;
import com.tngtech.archunit.core.domain.JavaCall;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaConstructor;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.SimpleConditionEvent;
import dev.ordinal.messaging.kafka.KafkaClients;
import dev.ordinal.runtime.ServiceApp;
import dev.ordinal.runtime.Supervisor;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The architecture as rules over the compiled main classes of both wings, with no list of classes
 * to keep: the services are found as the packages of the {@link ServiceApp} implementations, the
 * lab as {@code dev.ordinal.lab..} and {@code dev.ordinal.testkit..}, a module's hidden part as any
 * {@code internal} package. (Maven's enforcer keeps the lab's jars off the product's runtime
 * classpath; these rules keep the imports apart.)
 */
class ArchitectureTest {
  static final String CLI = "dev.ordinal.cli..";

  /**
   * The console: like the command an operator's tool, reading the services' tables, starting none.
   */
  static final String CONSOLE = "dev.ordinal.console..";

  static final String[] LAB = {"dev.ordinal.lab..", "dev.ordinal.testkit.."};

  static JavaClasses classes;

  /** The root package of each service: where a {@link ServiceApp} implementation lives. */
  static List<String> services;

  @BeforeAll
  static void importClasses() {
    classes =
        new ClassFileImporter()
            // the other modules' main classes come as jars (or class folders) of the reactor
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("dev.ordinal");
    services =
        classes.stream()
            .filter(c -> c.isAssignableTo(ServiceApp.class) && !c.isInterface())
            .filter(c -> !c.getModifiers().contains(JavaModifier.ABSTRACT))
            .map(JavaClass::getPackageName)
            .filter(p -> !p.startsWith("dev.ordinal.lab") && !p.startsWith("dev.ordinal.testkit"))
            .collect(Collectors.toCollection(TreeSet::new))
            .stream()
            .toList();
  }

  @Test
  void theServicesAreFoundFromTheirRuntimeClasses() {
    assertThat(services)
        .containsExactly(
            "dev.ordinal.billing", "dev.ordinal.monitor", "dev.ordinal.order", "dev.ordinal.relay");
  }

  @Test
  void onlyKafkaClientsMakesTheProductsKafkaProducersConsumersAndAdminClients() {
    // the user's client properties (security.protocol, sasl.*, ssl.*) reach a client only through
    // KafkaClients: a client made anywhere else would not connect to a secured cluster (Kafka
    // Streams is made by the monitor from the properties KafkaClients merges)
    Set<String> constructed =
        Set.of(
            "org.apache.kafka.clients.producer.KafkaProducer",
            "org.apache.kafka.clients.consumer.KafkaConsumer");
    Set<String> created =
        Set.of(
            "org.apache.kafka.clients.admin.Admin", "org.apache.kafka.clients.admin.AdminClient");
    DescribedPredicate<JavaCall<?>> makesAClient =
        DescribedPredicate.describe(
            "make a Kafka producer, consumer or admin client",
            call -> {
              String owner = call.getTargetOwner().getFullName();
              return call.getName().equals(JavaConstructor.CONSTRUCTOR_NAME)
                      && constructed.contains(owner)
                  || call.getName().equals("create") && created.contains(owner);
            });
    noClasses()
        .that()
        .resideOutsideOfPackages(LAB)
        .and()
        .doNotHaveFullyQualifiedName(KafkaClients.class.getName())
        // its package-private helper: the clients with their metrics bound, from its properties
        .and(
            DescribedPredicate.describe(
                "are not KafkaClients' MeteredClients",
                c ->
                    !c.getName()
                        .startsWith(KafkaClients.class.getPackageName() + ".MeteredClients")))
        .should()
        .callCodeUnitWhere(makesAClient)
        .because("every product Kafka client takes the user's client properties")
        .check(classes);
  }

  @Test
  void theProductImportsNothingFromTheLab() {
    noClasses()
        .that()
        .resideOutsideOfPackages(LAB)
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(LAB)
        .because("the lab proves the product and never ships")
        .check(classes);
  }

  @Test
  void aServiceIsImportedOnlyByItselfTheCommandTheConsoleAndTheLab() {
    for (String service : services) {
      String[] allowed = {service + "..", CLI, CONSOLE, LAB[0], LAB[1]};
      noClasses()
          .that()
          .resideOutsideOfPackages(allowed)
          .should()
          .dependOnClassesThat()
          .resideInAPackage(service + "..")
          .because(
              "services talk through Kafka topics, and the libraries serve every service and know"
                  + " none of them")
          .check(classes);
    }
  }

  @Test
  void theRuntimeKnowsNothingOfMessagingOrTheLab() {
    noClasses()
        .that()
        .resideInAPackage("dev.ordinal.runtime..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage("dev.ordinal.messaging..", LAB[0], LAB[1])
        .check(classes);
  }

  @Test
  void theContractsDependOnNothingOfOurs() {
    noClasses()
        .that()
        .resideInAPackage("dev.ordinal.contracts..")
        .should()
        .dependOnClassesThat(
            com.tngtech.archunit.base.DescribedPredicate.describe(
                "of another dev.ordinal package",
                c ->
                    c.getPackageName().startsWith("dev.ordinal.")
                        && !c.getPackageName().startsWith("dev.ordinal.contracts")))
        .allowEmptyShould(true)
        .check(classes);
  }

  /** A module's {@code internal} package is used only below the package that holds it. */
  @Test
  void anInternalPackageIsItsModulesOwn() {
    noClasses()
        .should(
            new ArchCondition<JavaClass>("use an internal package of another module") {
              @Override
              public void check(JavaClass origin, ConditionEvents events) {
                for (Dependency d : origin.getDirectDependenciesFromSelf()) {
                  String target = d.getTargetClass().getPackageName();
                  int at = target.indexOf(".internal");
                  if (!target.startsWith("dev.ordinal.") || at < 0) {
                    continue;
                  }
                  String owner = target.substring(0, at);
                  String from = origin.getPackageName();
                  if (!from.equals(owner) && !from.startsWith(owner + ".")) {
                    events.add(SimpleConditionEvent.violated(d, d.getDescription()));
                  }
                }
              }
            })
        .check(classes);
  }

  /**
   * Loops are started under a {@link Supervisor}; whatever takes one (a consumer, the issuer, a
   * retention job, the relay) is started by a service's runtime class, never by the command or by
   * another part of the product. The command starts a service only through its runtime class.
   */
  @Test
  void loopsAreWiredOnlyByARuntimeClass() {
    noClasses()
        .that()
        .resideOutsideOfPackages(LAB)
        .and()
        .resideOutsideOfPackage("dev.ordinal.runtime..")
        .and()
        .areNotAssignableTo(ServiceApp.class)
        .should(
            new ArchCondition<JavaClass>("call what takes a Supervisor") {
              @Override
              public void check(JavaClass origin, ConditionEvents events) {
                origin.getCodeUnitCallsFromSelf().stream()
                    .filter(
                        call ->
                            call.getTarget().getRawParameterTypes().stream()
                                .anyMatch(p -> p.isEquivalentTo(Supervisor.class)))
                    .filter(call -> !call.getTargetOwner().equals(origin))
                    .forEach(
                        call ->
                            events.add(SimpleConditionEvent.violated(call, call.getDescription())));
              }
            })
        .because("a service is put together in one place, its runtime class")
        .check(classes);
  }

  @Test
  void theCommandNeverRunsLoopsItself() {
    noClasses()
        .that()
        .resideInAPackage(CLI)
        .should()
        .dependOnClassesThat()
        .belongToAnyOf(Supervisor.class, dev.ordinal.runtime.ServiceRuntime.class)
        .because("the command starts a service through its runtime class, nothing else")
        .check(classes);
  }

  @Test
  void theRulesSeeBothWings() {
    Set<String> packages =
        classes.stream().map(JavaClass::getPackageName).collect(Collectors.toSet());
    assertThat(packages)
        .contains(
            "dev.ordinal.cli",
            "dev.ordinal.lab.demo",
            "dev.ordinal.lab.bench",
            "dev.ordinal.messaging.inbox",
            "dev.ordinal.ops.replay");
  }
}

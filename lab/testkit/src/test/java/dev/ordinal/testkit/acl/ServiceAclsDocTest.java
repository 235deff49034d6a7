package dev.ordinal.testkit.acl;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * docs/DEPLOY.md's table of Kafka ACLs is {@link ServiceAcls#GRANTS}, the list the secured-Kafka
 * test grants: row for row, in order.
 */
class ServiceAclsDocTest {
  static final String HEADER = "| user | resource | name | pattern | operations |";

  @Test
  void deployMdListsExactlyTheAclsTheTestGrants() throws IOException {
    List<String> lines = deployMd();
    int header = lines.indexOf(HEADER);
    assertThat(header).as("docs/DEPLOY.md has the table headed " + HEADER).isNotNegative();
    List<String> rows =
        lines.subList(header + 2, lines.size()).stream()
            .takeWhile(l -> l.startsWith("|"))
            .map(ServiceAclsDocTest::normal)
            .toList();

    assertThat(rows)
        .containsExactlyElementsOf(
            ServiceAcls.GRANTS.stream()
                .map(ServiceAcls.Grant::row)
                .map(ServiceAclsDocTest::normal)
                .toList());
  }

  @Test
  void eachServiceAndTheOperatorHasGrants() {
    for (String user :
        List.of(
            ServiceAcls.RELAY, ServiceAcls.BILLING, ServiceAcls.MONITOR, ServiceAcls.OPERATOR)) {
      assertThat(ServiceAcls.of(user)).as(user).isNotEmpty();
    }
    assertThat(
            ServiceAcls.bindings(
                ServiceAcls.BILLING, new ServiceAcls.Names("shop", "shop-billing", "shop-monitor")))
        .extracting(b -> b.pattern().name())
        .contains("shop.order", "shop.order-bulk.dlq", "shop-billing")
        .noneMatch(n -> n.contains("<"));
  }

  private static String normal(String row) {
    return row.strip().replaceAll("\\s+", " ");
  }

  private static List<String> deployMd() throws IOException {
    Path dir = Path.of("").toAbsolutePath();
    while (dir != null && !Files.exists(dir.resolve("docs/DEPLOY.md"))) {
      dir = dir.getParent();
    }
    assertThat(dir).as("docs/DEPLOY.md above " + Path.of("").toAbsolutePath()).isNotNull();
    return Files.readAllLines(dir.resolve("docs/DEPLOY.md"));
  }
}

package dev.ordinal.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ordinal.messaging.kafka.Topics;
import dev.ordinal.testkit.OrdinalStackExtension;
import dev.ordinal.testkit.TestNamespace;
import java.io.PrintWriter;
import java.io.StringWriter;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import picocli.CommandLine;

/**
 * {@code ./ordinal billing} against the real servers refuses an inbox retention that does not cover
 * what Kafka can redeliver: one sentence, exit 2, and nothing created in the database.
 */
@ExtendWith(OrdinalStackExtension.class)
class BillingCommandIT {

  @Test
  void anInboxRetentionShorterThanATopicsRetentionIsRefusedBeforeAnythingStarts(TestNamespace ns)
      throws Exception {
    // the embedded broker's topics keep records for days: two days of inbox cannot cover them
    String prefix = ns.topicPrefix();
    String bootstrap = ns.stack().kafkaBootstrap();
    Topics.ensure(bootstrap, prefix + ".order", 1);
    Topics.ensure(bootstrap, prefix + ".order-bulk", 1);
    String schema = ns.schema("billing_cmd");
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    BillingCommand command = new BillingCommand();
    command.env = ns.serverEnvironment();
    CommandLine cli = new CommandLine(command);
    cli.setOut(new PrintWriter(out));
    cli.setErr(new PrintWriter(err));

    int status =
        cli.execute(
            "--topic-prefix",
            prefix,
            "--schema",
            schema,
            "--group",
            ns.group("billing"),
            "--inbox-retention",
            "P2D",
            "--replay-window",
            "P1D",
            "--management-port",
            "-1");

    assertThat(status).isEqualTo(2);
    assertThat(err.toString().lines()).hasSize(1);
    assertThat(err.toString().strip())
        .isEqualTo(
            "ordinal: Inbox retention PT48H for consumer billing is shorter than the PT336H topic "
                + prefix
                + ".order may keep a record, which could be replayed after its inbox row is"
                + " deleted; raise the retention or pass --allow-short-retention");
    assertThat(
            DSL.using(ns.dataSource(), org.jooq.SQLDialect.POSTGRES)
                .fetchExists(
                    DSL.selectOne()
                        .from(DSL.table(DSL.name("information_schema", "schemata")))
                        .where(DSL.field(DSL.name("schema_name"), String.class).eq(schema))))
        .as("nothing created")
        .isFalse();
  }
}

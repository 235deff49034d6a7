package dev.ordinal.cli;

import dev.ordinal.messaging.db.DatabaseSettings;
import dev.ordinal.messaging.kafka.Topics;
import dev.ordinal.relay.RelayApp;
import dev.ordinal.relay.RelayConfig;
import dev.ordinal.relay.RelayRecovery;
import dev.ordinal.relay.RelaySettings;
import dev.ordinal.relay.RelaySetup;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.function.UnaryOperator;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

@Command(
    name = "relay",
    mixinStandardHelpOptions = true,
    description = {
      "Runs the CDC relay until Ctrl-C: each --schema's outbox table's WAL into Kafka through an"
          + " embedded Debezium engine, with a slot, publication and leader lock of its own"
          + " (ordinal_<schema>). Start several for one outbox: one streams, the others stand by"
          + " and take over when it dies. The slot is never dropped when the relay stops.",
      "",
      "Each outbox is a supervised loop (relay-<schema>) beside its slot monitor: an error stops"
          + " the engine and steps down, the loop runs again after a backoff with jitter, and"
          + " GET /health/ready on the management port names each loop, its state and its last"
          + " error. A server that does not answer at start is waited for.",
      "",
      "Database: ORDINAL_DB_URL / ORDINAL_DB_USER / ORDINAL_DB_PASSWORD (a role with LOGIN"
          + " REPLICATION; see 'relay setup-sql'), Kafka: ORDINAL_KAFKA_BOOTSTRAP (or db.url,"
          + " kafka.bootstrap in the ORDINAL_CONFIG file); with none set it refuses ('./ordinal"
          + " up' starts a local stack). A URL naming several servers (a primary and its"
          + " standbys) is followed to the primary, the replication stream included; on"
          + " PostgreSQL 17 the relay's slot is a failover slot (docs/RELAY.md, Failover)."
          + " Every option can also be set as ORDINAL_RELAY_<OPTION>"
          + " or relay.<option> in the ORDINAL_CONFIG properties file.",
      "",
      "An outbox row Kafka refuses for good (larger than the producer's max.request.size, a topic"
          + " it may not use) stops the relay before it: nothing after it is published, the loop"
          + " is not ready and its last error names the row; raise the limit, or restart with"
          + " --skip-event <id>.",
      "",
      "Exit status: 0 after Ctrl-C; 2 on bad options or configuration (wal_level, a role without"
          + " REPLICATION, an outbox it cannot read, a slot or publication that serves another"
          + " schema's outbox)."
    },
    subcommands = {
      RelayCommand.SetupSql.class,
      RelayCommand.Republish.class,
      RelayCommand.ResetPosition.class
    })
final class RelayCommand implements Callable<Integer> {
  // visible for testing
  Map<String, String> env = System.getenv();

  /** Where the relay reads and writes; shared by the run and setup-sql. */
  static final class Target {
    @Option(
        names = "--schema",
        split = ",",
        defaultValue = RelaySettings.DEFAULT_SCHEMA,
        description =
            "Schema(s) of the outbox tables, comma-separated or repeated: order-service's"
                + " 'orders' and billing's 'billing' (default ${DEFAULT-VALUE}).")
    List<String> schemas;

    @Option(
        names = "--topic-prefix",
        defaultValue = RelaySettings.DEFAULT_TOPIC_PREFIX,
        description = "Topics are <prefix>.<aggregate_type> (default ${DEFAULT-VALUE}).")
    String topicPrefix;

    @Option(
        names = "--slot",
        description = "Replication slot, with one --schema only (default ordinal_<schema>).")
    String slot;

    @Option(
        names = "--publication",
        description =
            "Publication on the outbox, with one --schema only (default ordinal_<schema>).")
    String publication;

    RelaySettings settings(DatabaseSettings db, String bootstrap) {
      return new RelaySettings(
          db, bootstrap, schemas, topicPrefix, slot, publication, true, null, null, null, null);
    }
  }

  @Mixin Target target;

  @Option(
      names = "--instance-id",
      description = "This relay's name in logs and metrics (default: random).")
  String instanceId;

  @Option(
      names = "--create-publication",
      negatable = true,
      defaultValue = "true",
      description =
          "Create the publication if missing (needs table ownership; default ${DEFAULT-VALUE}). Use --no-create-publication with a least-privilege role.")
  boolean createPublication;

  @Option(
      converter = DurationConverter.class,
      names = "--heartbeat",
      defaultValue = "PT5S",
      description =
          "WAL heartbeat interval, ISO-8601; PT0S turns it off (default ${DEFAULT-VALUE}).")
  Duration heartbeat;

  @Option(
      converter = DurationConverter.class,
      names = "--offset-flush-interval",
      defaultValue = "PT1S",
      description = "How often the relayed position is stored (default ${DEFAULT-VALUE}).")
  Duration offsetFlush;

  @Option(
      names = "--skip-event",
      split = ",",
      paramLabel = "<id>",
      description =
          "Outbox row id(s) to pass over without publishing, after the relay stopped before a row"
              + " Kafka refuses for good and named it; the row stays in the table. Remove it once"
              + " the relay has passed it.")
  List<UUID> skipEvents = List.of();

  @Option(
      names = "--replication-factor",
      defaultValue = "3",
      description =
          "Replication factor of the topics the relay creates, capped by the brokers present"
              + " (default ${DEFAULT-VALUE}).")
  int replicationFactor;

  @Option(
      names = "--min-insync-replicas",
      defaultValue = "2",
      description =
          "min.insync.replicas of the topics the relay creates, capped by their replication"
              + " factor; existing topics below these get a warning at start (default"
              + " ${DEFAULT-VALUE}).")
  int minInsyncReplicas;

  @Option(
      converter = DurationConverter.class,
      names = "--leader-lease",
      defaultValue = "PT10S",
      description =
          "How long a leader that stops answering (frozen, paused, cut off) keeps the lead:"
              + " PostgreSQL ends its lock's session after this long without a check, a standby"
              + " takes over, and the old leader sends nothing more once half of it has passed"
              + " without a check (default ${DEFAULT-VALUE}).")
  Duration leaderLease;

  @Mixin Management management = new Management(RelaySettings.DEFAULT_MANAGEMENT_PORT);

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  /** The options, checked; each problem is one sentence, before any server is touched. */
  RelaySettings settings(DatabaseSettings db, String bootstrap) {
    try {
      return new RelaySettings(
          db,
          bootstrap,
          target.schemas,
          target.topicPrefix,
          target.slot,
          target.publication,
          createPublication,
          heartbeat,
          offsetFlush,
          instanceId,
          management.settings(spec),
          Set.copyOf(skipEvents),
          new Topics.Durability(replicationFactor, minInsyncReplicas),
          leaderLease);
    } catch (RuntimeException e) {
      throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
    }
  }

  @Override
  public Integer call() throws Exception {
    return Serve.onServers(
        spec.commandLine(),
        "relay",
        env,
        this::settings,
        RelayApp::new,
        (s, app) -> {
          StringBuilder b = new StringBuilder();
          for (String schema : s.schemas()) {
            RelayConfig c = s.config(schema).build();
            b.append(b.length() == 0 ? "relay: " : "; ")
                .append(schema)
                .append(".outbox -> ")
                .append(c.topicPrefix())
                .append(".<aggregate> (slot ")
                .append(c.slotName())
                .append(")");
          }
          return b.toString();
        },
        UnaryOperator.identity());
  }

  @Command(
      name = "setup-sql",
      mixinStandardHelpOptions = true,
      description = {
        "Prints the SQL that gives the relay only what it needs: a role with LOGIN REPLICATION,"
            + " USAGE on the schema, SELECT on the outbox, its offsets table, and the publication"
            + " made by the table's owner. Review it and run it as the owner.",
        "The password comes from ORDINAL_RELAY_PASSWORD (never from the command line)."
      })
  static final class SetupSql implements Callable<Integer> {
    @Mixin Target target;

    @Option(
        names = "--role",
        defaultValue = "ordinal_relay",
        description = "The relay's role (default ${DEFAULT-VALUE}).")
    String role;

    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
      String password = System.getenv("ORDINAL_RELAY_PASSWORD");
      if (password == null || password.isBlank()) {
        spec.commandLine()
            .getErr()
            .println(
                "ordinal: set ORDINAL_RELAY_PASSWORD to the password the relay's role should have.");
        return 2;
      }
      DatabaseSettings placeholder =
          new DatabaseSettings("jdbc:postgresql://localhost/postgres", role, password);
      RelaySettings settings;
      try {
        settings = target.settings(placeholder, "localhost:9092");
      } catch (RuntimeException e) {
        throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
      }
      for (String schema : settings.schemas()) {
        spec.commandLine()
            .getOut()
            .print(RelaySetup.sql(settings.config(schema).build(), role, password));
      }
      spec.commandLine().getOut().flush();
      return 0;
    }
  }

  /** The one outbox a recovery command acts on, on the servers the relay uses. */
  static RelayConfig recoveryConfig(
      CommandLine.Model.CommandSpec spec, Target target, ExternalServers servers) {
    if (target.schemas.size() != 1) {
      throw new CommandLine.ParameterException(
          spec.commandLine(), "--schema names one outbox here, not " + target.schemas);
    }
    DatabaseSettings db = servers.databaseSettings();
    try {
      return target.settings(db, servers.bootstrap()).config(target.schemas.get(0)).build();
    } catch (RuntimeException e) {
      throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
    }
  }

  @Command(
      name = "republish",
      mixinStandardHelpOptions = true,
      description = {
        "Publishes outbox rows again, under their original message ids (consumers skip what they"
            + " applied already): the rows of --schema's outbox whose occurred_at is from --from"
            + " (and up to --to), in that order, to <prefix>.<aggregate_type> with the relay's"
            + " key, value and headers. A dry run (counts per topic) unless --execute.",
        "",
        "For after the relay refused to stream because its slot was lost or recreated: first"
            + " 'relay reset-position --execute', then this from the time the refusal names. Only"
            + " rows still in the table can be published again: --outbox-retention after-age keeps"
            + " them for its age (1 h by default), delete-on-write not at all.",
        "",
        "Servers: ORDINAL_DB_URL / ORDINAL_DB_USER / ORDINAL_DB_PASSWORD and"
            + " ORDINAL_KAFKA_BOOTSTRAP (those the relay uses).",
        "",
        "Exit status: 0 when done (or planned); 1 when Kafka refused a row (the rows before it are"
            + " published; running it again is safe); 2 on bad options."
      })
  static final class Republish implements Callable<Integer> {
    // visible for testing
    Map<String, String> env = System.getenv();

    @Mixin Target target;

    @Option(
        names = "--from",
        required = true,
        description = "The first row: an ISO-8601 time (2026-12-01T18:00:00Z) or a message id.")
    String from;

    @Option(
        names = "--to",
        description = "The last row: an ISO-8601 time or a message id (default: the newest).")
    String to;

    @Option(names = "--execute", description = "Publish; without it, only say what would be.")
    boolean execute;

    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
      CommandLine cli = spec.commandLine();
      return ExternalServers.run(
          cli,
          "relay republish",
          () -> {
            try (ExternalServers servers =
                ExternalServers.from(Settings.environment(env), "relay republish")) {
              RelayConfig config = recoveryConfig(spec, target, servers);
              RelayRecovery recovery = new RelayRecovery(config);
              RelayRecovery.Bound first = RelayRecovery.Bound.parse("--from", from);
              RelayRecovery.Bound last = RelayRecovery.Bound.parse("--to", to);
              RelayRecovery.Plan plan = recovery.plan(first, last);
              java.io.PrintWriter out = cli.getOut();
              out.printf(
                  "%s.outbox: %d rows from %s to %s%n",
                  config.outboxSchema(), plan.rows(), plan.first(), plan.last());
              plan.byAggregateType()
                  .forEach((type, n) -> out.printf("  %s.%s  %d%n", config.topicPrefix(), type, n));
              if (!execute) {
                out.println("Dry run: nothing published; --execute publishes them.");
                out.flush();
                return 0;
              }
              out.flush();
              long sent =
                  recovery.republish(
                      first,
                      last,
                      line -> {
                        out.println("  " + line);
                        out.flush();
                      });
              out.printf("Published again: %d rows, under their original message ids.%n", sent);
              out.flush();
              return 0;
            }
          });
    }
  }

  @Command(
      name = "reset-position",
      mixinStandardHelpOptions = true,
      description = {
        "Gives the relay of --schema a slot that starts now, after it refused to stream because"
            + " its slot was missing, invalidated or ahead of its stored position: deletes the"
            + " stored position, drops an invalidated slot and creates the slot if missing. Then"
            + " 'relay republish --from <the time the refusal names> --execute' publishes the rows"
            + " committed since, and the relay starts. A dry run unless --execute; refused while"
            + " a relay streams from the slot.",
        "",
        "Servers: ORDINAL_DB_URL / ORDINAL_DB_USER / ORDINAL_DB_PASSWORD (the relay's role) and"
            + " ORDINAL_KAFKA_BOOTSTRAP.",
        "",
        "Exit status: 0 when done (or planned); 1 on a failure; 2 on bad options or while a relay"
            + " streams."
      })
  static final class ResetPosition implements Callable<Integer> {
    // visible for testing
    Map<String, String> env = System.getenv();

    @Mixin Target target;

    @Option(names = "--execute", description = "Do it; without it, only say what would be done.")
    boolean execute;

    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
      CommandLine cli = spec.commandLine();
      return ExternalServers.run(
          cli,
          "relay reset-position",
          () -> {
            try (ExternalServers servers =
                ExternalServers.from(Settings.environment(env), "relay reset-position")) {
              RelayConfig config = recoveryConfig(spec, target, servers);
              RelayRecovery.Reset r;
              try {
                r = new RelayRecovery(config).resetPosition(execute);
              } catch (IllegalStateException e) {
                throw new dev.ordinal.messaging.RefusedException(e.getMessage() + ".");
              }
              java.io.PrintWriter out = cli.getOut();
              String verb = execute ? "" : "would be ";
              out.printf(
                  "%s.outbox, slot %s: stored position %s%s; slot %s%n",
                  config.outboxSchema(),
                  config.slotName(),
                  r.storedPositionDeleted() ? verb + "deleted" : "none",
                  r.slotDropped() ? ", invalidated slot " + verb + "dropped" : "",
                  r.slotCreated() ? verb + "created from the current end of the WAL" : "kept");
              out.println(
                  execute
                      ? "Done: publish the rows since the loss with 'relay republish --from ..."
                          + " --execute', then start the relay."
                      : "Dry run: nothing changed; --execute does it.");
              out.flush();
              return 0;
            }
          });
    }
  }
}

package dev.ordinal.cli;

import dev.ordinal.messaging.db.DatabaseSettings;
import dev.ordinal.messaging.kafka.KafkaClients;
import dev.ordinal.relay.ConnectorConfig;
import dev.ordinal.relay.RelayApp;
import dev.ordinal.relay.RelayConfig;
import dev.ordinal.relay.RelayMode;
import dev.ordinal.relay.RelayRecovery;
import dev.ordinal.relay.RelaySettings;
import dev.ordinal.relay.RelaySetup;
import dev.ordinal.runtime.settings.Setting;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Command(
    name = "relay",
    mixinStandardHelpOptions = true,
    modelTransformer = RelayCommand.Options.class,
    description = {
      "Runs the relay until Ctrl-C. --mode cdc (the default): each --schema's outbox table's WAL"
          + " into Kafka through an embedded Debezium engine, with a slot, publication and leader"
          + " lock of its own (ordinal_<schema>), in commit order. Start several for one outbox:"
          + " one streams, the others stand by and take over when it dies. The slot is never"
          + " dropped when the relay stops.",
      "",
      "--mode polling: polls each --schema's outbox table with leases (loop"
          + " polling-relay-<schema>); needs no REPLICATION role and no wal_level=logical. Any"
          + " number of instances share the work; no event is published while an older one"
          + " (occurred_at, then id) of its aggregate (aggregate_type, aggregate_id) is not;"
          + " at least once (consumers skip copies by message id); published rows are marked"
          + " dispatched, for order-service --outbox-retention after-dispatch. --poll-interval,"
          + " --batch-size and --lease are refused with --mode cdc, the CDC options (--slot,"
          + " --skip-event, ...) with --mode polling.",
      "",
      "Each outbox is a supervised loop (relay-<schema>) beside its slot monitor: an error stops"
          + " the engine and steps down, the loop runs again after a backoff with jitter, and"
          + " GET /health/ready on the management port names each loop, its state and its last"
          + " error. A server that does not answer at start is waited for.",
      "",
      "Database: ORDINAL_DB_URL / ORDINAL_DB_USER / ORDINAL_DB_PASSWORD (a role with LOGIN"
          + " REPLICATION; see 'relay setup-sql'), Kafka: ORDINAL_KAFKA_BOOTSTRAP and its client"
          + " properties file ORDINAL_KAFKA_CONFIG (or db.url, kafka.bootstrap, kafka.config in"
          + " the ORDINAL_CONFIG file); with none set it refuses ('./ordinal"
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
      RelayCommand.ResetPosition.class,
      RelayCommand.MarkDispatched.class,
      RelayCommand.ConnectConfig.class
    })
final class RelayCommand extends ServiceCommand {
  /** The options: {@link RelaySettings#ALL}. */
  static final class Options extends SettingOptions {
    Options() {
      super(RelaySettings.ALL);
    }
  }

  /**
   * The options of the subcommands: where the relay reads and writes ({@link
   * RelaySettings#TARGET}).
   */
  static final class TargetOptions extends SettingOptions {
    TargetOptions() {
      super(RelaySettings.TARGET);
    }
  }

  /** The options, checked; each problem is one sentence, before any server is touched. */
  RelaySettings settings(DatabaseSettings db, KafkaClients kafka) {
    return checked(() -> RelaySettings.builder(db, kafka).with(values()).build());
  }

  /** The options of {@code connect-config}: {@link RelaySettings#CONNECT}. */
  static final class ConnectOptions extends SettingOptions {
    ConnectOptions() {
      super(RelaySettings.CONNECT);
    }
  }

  /** A subcommand's relay settings: where it reads and writes, the rest the relay's defaults. */
  static RelaySettings target(
      CommandLine.Model.CommandSpec spec, DatabaseSettings db, KafkaClients kafka) {
    return target(spec, RelaySettings.TARGET, db, kafka);
  }

  /** A subcommand's relay settings from its {@code options}, the rest the relay's defaults. */
  static RelaySettings target(
      CommandLine.Model.CommandSpec spec,
      List<Setting<?>> options,
      DatabaseSettings db,
      KafkaClients kafka) {
    return SettingOptions.checked(
        spec,
        () -> RelaySettings.builder(db, kafka).with(SettingOptions.values(spec, options)).build());
  }

  @Override
  public Integer call() throws Exception {
    return serve(
        this::settings,
        RelayApp::new,
        (s, app) -> {
          if (s.mode() == RelayMode.POLLING) {
            return "relay (polling): "
                + String.join(", ", s.schemas())
                + " outbox -> "
                + s.topicPrefix()
                + ".<aggregate>";
          }
          StringBuilder b = new StringBuilder();
          for (RelayConfig c : s.configs()) {
            b.append(b.length() == 0 ? "relay: " : "; ")
                .append(c.outboxSchema())
                .append(".outbox -> ")
                .append(c.topicPrefix())
                .append(".<aggregate> (slot ")
                .append(c.slotName())
                .append(")");
          }
          return b.toString();
        });
  }

  @Command(
      name = "setup-sql",
      mixinStandardHelpOptions = true,
      modelTransformer = RelayCommand.TargetOptions.class,
      description = {
        "Prints the SQL that gives the relay only what it needs: a role with LOGIN REPLICATION"
            + " (for a superuser to run: PostgreSQL lets only a superuser give REPLICATION, or"
            + " from version 16 a role with CREATEROLE that has it), then for each --schema USAGE"
            + " on the schema, SELECT on the outbox, its offsets table and the publication (for"
            + " the outbox table's owner to run, who needs CREATE on the database for the"
            + " publication). Review it and run each part as its comment says.",
        "The password comes from ORDINAL_RELAY_PASSWORD, or the file ORDINAL_RELAY_PASSWORD_FILE"
            + " names (never from the command line)."
      })
  static final class SetupSql extends EnvCommand {
    @Option(
        names = "--role",
        defaultValue = "ordinal_relay",
        description = "The relay's role (default ${DEFAULT-VALUE}).")
    String role;

    @Override
    public Integer call() {
      String password = Settings.environment(env).get("ORDINAL_RELAY_PASSWORD");
      if (password == null || password.isBlank()) {
        spec.commandLine()
            .getErr()
            .println(
                "ordinal: set ORDINAL_RELAY_PASSWORD (or ORDINAL_RELAY_PASSWORD_FILE) to the"
                    + " password the relay's role should have.");
        return 2;
      }
      DatabaseSettings placeholder =
          new DatabaseSettings("jdbc:postgresql://localhost/postgres", role, password);
      RelaySettings settings = target(spec, placeholder, KafkaClients.of("localhost:9092"));
      spec.commandLine().getOut().print(RelaySetup.sql(settings.configs(), role, password));
      spec.commandLine().getOut().flush();
      return 0;
    }
  }

  /** A subcommand that reads its environment (another in tests) and its own spec. */
  abstract static class EnvCommand implements Callable<Integer> {
    // visible for testing
    Map<String, String> env = System.getenv();

    @CommandLine.Spec CommandLine.Model.CommandSpec spec;
  }

  /**
   * A recovery command: its work on the one outbox {@code --schema} names, on the servers the relay
   * uses; a failure is one sentence and an exit status ({@link ExternalServers#run}).
   */
  abstract static class Recovery extends EnvCommand {
    @Override
    public Integer call() {
      return ExternalServers.run(
          spec.commandLine(),
          "relay " + spec.name(),
          env,
          commandConfig(),
          // republish publishes (WRITE implies DESCRIBE); the others use no Kafka
          resource -> "WRITE",
          (servers, out) -> recover(recoveryConfig(spec, servers), out));
    }

    /** The command's {@code --command-config}, for one that talks to Kafka; null otherwise. */
    Path commandConfig() {
      return null;
    }

    /** The work on {@code config}'s outbox; its exit status. */
    abstract int recover(RelayConfig config, PrintWriter out) throws Exception;

    /** {@code work}'s result; its refusal ({@link IllegalStateException}) an exit status of 2. */
    static <T> T refusing(Callable<T> work) throws Exception {
      try {
        return work.call();
      } catch (IllegalStateException e) {
        throw new dev.ordinal.messaging.RefusedException(e.getMessage() + ".");
      }
    }
  }

  /** The one outbox a recovery command acts on, on the servers the relay uses. */
  static RelayConfig recoveryConfig(CommandLine.Model.CommandSpec spec, ExternalServers servers) {
    return oneOutbox(spec, RelaySettings.TARGET, servers.databaseSettings(), servers.kafka());
  }

  /** The one outbox {@code --schema} names, configured from {@code options}. */
  static RelayConfig oneOutbox(
      CommandLine.Model.CommandSpec spec,
      List<Setting<?>> options,
      DatabaseSettings db,
      KafkaClients kafka) {
    List<String> schemas = SettingOptions.values(spec, options).get(RelaySettings.SCHEMAS);
    if (schemas.size() != 1) {
      throw new CommandLine.ParameterException(
          spec.commandLine(), "--schema names one outbox here, not " + schemas);
    }
    return target(spec, options, db, kafka).configs().get(0);
  }

  @Command(
      name = "connect-config",
      mixinStandardHelpOptions = true,
      modelTransformer = RelayCommand.ConnectOptions.class,
      description = {
        "Prints, as JSON for Kafka Connect's POST /connectors ({\"name\": ..., \"config\": ...}),"
            + " the Debezium PostgreSQL connector that publishes --schema's outbox as the relay"
            + " does (same slot, publication, topics, keys, values and headers, except relayed-by"
            + " = kafka-connect/<name>), exactly once (exactly.once.support=required,"
            + " transaction.boundary=poll). Connects to nothing.",
        "",
        "The database is ORDINAL_DB_URL's first host, port and database, and ORDINAL_DB_USER;"
            + " of the URL's parameters only sslmode, sslrootcert, sslcert, sslkey, sslfactory"
            + " and tcpKeepAlive carry over, and a URL naming several servers is refused. The"
            + " password is never printed: database.password is $${env:ORDINAL_DB_PASSWORD}, for"
            + " the worker's EnvVarConfigProvider (config.providers=env). The worker needs"
            + " exactly.once.source.support=enabled and the ordinal-connect-transforms jar (the"
            + " headers' transformation) on its plugin.path; see docs/RELAY.md, Kafka Connect,"
            + " for both and for what the relay checks that Connect does not.",
        "",
        "Exit status: 0 when printed; 2 on bad options or configuration."
      })
  static final class ConnectConfig extends EnvCommand {
    @Override
    public Integer call() {
      return ExternalServers.run(
          spec.commandLine(),
          "relay connect-config",
          () -> {
            DatabaseSettings db = ServerSettings.from(env).database("relay connect-config");
            // no Kafka client is made: the worker has its own cluster
            RelayConfig c =
                oneOutbox(spec, RelaySettings.CONNECT, db, KafkaClients.of("localhost:9092"));
            spec.commandLine().getOut().println(ConnectorConfig.json(c));
            spec.commandLine().getOut().flush();
            return 0;
          });
    }
  }

  @Command(
      name = "republish",
      mixinStandardHelpOptions = true,
      modelTransformer = RelayCommand.TargetOptions.class,
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
            + " ORDINAL_KAFKA_BOOTSTRAP (those the relay uses); Kafka's client properties"
            + " (security, SASL, SSL) from --command-config or ORDINAL_KAFKA_CONFIG.",
        "",
        "Exit status: 0 when done (or planned); 1 when Kafka refused a row (the rows before it are"
            + " published; running it again is safe); 2 on bad options, or a missing ACL named in"
            + " one sentence (WRITE on the topic; rows before it are published)."
      })
  static final class Republish extends Recovery {
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

    @CommandLine.Mixin CommandConfigOption kafkaConfig = new CommandConfigOption();

    @Override
    Path commandConfig() {
      return kafkaConfig.file;
    }

    @Override
    int recover(RelayConfig config, PrintWriter out) throws Exception {
      RelayRecovery recovery = new RelayRecovery(config);
      RelayRecovery.Bound first = RelayRecovery.Bound.parse("--from", from);
      RelayRecovery.Bound last = RelayRecovery.Bound.parse("--to", to);
      RelayRecovery.Plan plan = recovery.plan(first, last);
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
  }

  @Command(
      name = "reset-position",
      mixinStandardHelpOptions = true,
      modelTransformer = RelayCommand.TargetOptions.class,
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
  static final class ResetPosition extends Recovery {
    @Option(names = "--execute", description = "Do it; without it, only say what would be done.")
    boolean execute;

    @Override
    int recover(RelayConfig config, PrintWriter out) throws Exception {
      RelayRecovery.Reset r = refusing(() -> new RelayRecovery(config).resetPosition(execute));
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
  }

  @Command(
      name = "mark-dispatched",
      mixinStandardHelpOptions = true,
      modelTransformer = RelayCommand.TargetOptions.class,
      description = {
        "The way back from the CDC relay to --mode polling: with the CDC relay stopped, sets"
            + " dispatched_at on the undispatched rows it published, those written at or before its"
            + " stored position's last commit less --margin (by occurred_at on a team's table,"
            + " written_at on Ordinal's outbox); then start the poller. A dry run unless --execute;"
            + " refused while a relay streams from the slot, or when no position is stored.",
        "",
        "Nothing is lost while a transaction commits less than --margin after that time (for"
            + " occurred_at, the writer's clock lag behind PostgreSQL's included). Copies, which"
            + " the poller publishes and consumers skip: at most the rows in the margin, printed,"
            + " plus those the CDC relay published after its last stored position (at most one"
            + " --offset-flush-interval plus one batch, as after a crash). The slot is kept: drop"
            + " it once the poller runs (docs/ADOPTING.md, The way back).",
        "",
        "Exit status: 0 when done (or planned); 1 on a failure; 2 on bad options, while a relay"
            + " streams, or with no stored position."
      })
  static final class MarkDispatched extends Recovery {
    @Option(
        names = "--margin",
        defaultValue = "1m",
        converter = DurationConverter.class,
        description =
            "How far before the last commit the marking stops (default: ${DEFAULT-VALUE}).")
    java.time.Duration margin;

    @Option(names = "--execute", description = "Mark; without it, only say what would be marked.")
    boolean execute;

    @Override
    int recover(RelayConfig config, PrintWriter out) throws Exception {
      RelayRecovery.Marking m =
          refusing(() -> new RelayRecovery(config).markDispatched(margin, execute));
      out.printf(
          "%s: %d rows %smarked dispatched (written up to %s, the last commit %s less %s);"
              + " %d rows in the margin left for the poller%n",
          config.outboxTable().qualified(config.outboxSchema()),
          m.rows(),
          execute ? "" : "would be ",
          m.cutOff(),
          m.lastCommit(),
          dev.ordinal.runtime.settings.Durations.format(margin),
          m.inMargin());
      out.println(execute ? "Done: start the polling relay." : "Dry run: --execute marks them.");
      out.flush();
      return 0;
    }
  }
}

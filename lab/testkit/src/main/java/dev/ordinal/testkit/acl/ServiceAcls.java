package dev.ordinal.testkit.acl;

import static org.apache.kafka.common.acl.AclOperation.CREATE;
import static org.apache.kafka.common.acl.AclOperation.DELETE;
import static org.apache.kafka.common.acl.AclOperation.DESCRIBE_CONFIGS;
import static org.apache.kafka.common.acl.AclOperation.READ;
import static org.apache.kafka.common.acl.AclOperation.WRITE;
import static org.apache.kafka.common.resource.PatternType.LITERAL;
import static org.apache.kafka.common.resource.PatternType.PREFIXED;
import static org.apache.kafka.common.resource.ResourceType.GROUP;
import static org.apache.kafka.common.resource.ResourceType.TOPIC;

import java.util.List;
import java.util.stream.Collectors;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;

/**
 * The Kafka ACLs each Ordinal user needs on a cluster whose authorizer allows nothing by default:
 * the one list the secured-Kafka test grants (and nothing more) and docs/DEPLOY.md shows as its
 * table, checked equal by a test. Names are templates: {@value #PREFIX} is the topic prefix,
 * {@value #BILLING_GROUP} billing's consumer group, {@value #APPLICATION_ID} the monitor's Kafka
 * Streams application id.
 *
 * <p>Operations that Kafka implies are not listed: READ, WRITE and DELETE on a topic or group imply
 * DESCRIBE. Since Kafka 3.0 an idempotent producer needs WRITE on a topic, not IDEMPOTENT_WRITE on
 * the cluster.
 */
public final class ServiceAcls {
  public static final String PREFIX = "<prefix>";
  public static final String BILLING_GROUP = "<billing-group>";
  public static final String APPLICATION_ID = "<application-id>";

  /** The Kafka user of each service, and of the operator's commands. */
  public static final String RELAY = "relay";

  public static final String BILLING = "billing";
  public static final String MONITOR = "monitor";
  public static final String OPERATOR = "operator";

  /**
   * One row of the table: {@code operations} allowed to {@code user} on the resources of {@code
   * type} whose name is {@code name} ({@link PatternType#LITERAL}) or starts with it ({@link
   * PatternType#PREFIXED}).
   */
  public record Grant(
      String user,
      ResourceType type,
      String name,
      PatternType pattern,
      List<AclOperation> operations) {

    /** The bindings of this grant, one per operation, with the names {@code names} gives. */
    public List<AclBinding> bindings(Names names) {
      ResourcePattern resource = new ResourcePattern(type, names.resolve(name), pattern);
      return operations.stream()
          .map(
              op ->
                  new AclBinding(
                      resource,
                      new AccessControlEntry("User:" + user, "*", op, AclPermissionType.ALLOW)))
          .toList();
    }

    /** The row as docs/DEPLOY.md writes it. */
    public String row() {
      return "| "
          + user
          + " | "
          + type
          + " | `"
          + name
          + "` | "
          + pattern
          + " | "
          + operations.stream().map(AclOperation::name).collect(Collectors.joining(", "))
          + " |";
    }
  }

  /** What the templates stand for in one deployment (or one test). */
  public record Names(String prefix, String billingGroup, String applicationId) {
    public String resolve(String template) {
      return template
          .replace(PREFIX, prefix)
          .replace(BILLING_GROUP, billingGroup)
          .replace(APPLICATION_ID, applicationId);
    }
  }

  /** Every grant, by user, in the order of docs/DEPLOY.md's table. */
  public static final List<Grant> GRANTS =
      List.of(
          // the relay writes each outbox's events to <prefix>.<aggregate>, creating the topic
          // first and checking the durability of those that exist
          topic(RELAY, PREFIX + ".order", CREATE, DESCRIBE_CONFIGS, WRITE),
          topic(RELAY, PREFIX + ".order-bulk", CREATE, DESCRIBE_CONFIGS, WRITE),
          topic(RELAY, PREFIX + ".invoice", CREATE, DESCRIBE_CONFIGS, WRITE),
          // billing reads the order topics in its group (checking their retention), and writes
          // dead letters to <topic>.dlq
          topic(BILLING, PREFIX + ".order", CREATE, DESCRIBE_CONFIGS, READ),
          topic(BILLING, PREFIX + ".order-bulk", CREATE, DESCRIBE_CONFIGS, READ),
          topic(BILLING, PREFIX + ".order.dlq", CREATE, DESCRIBE_CONFIGS, WRITE),
          topic(BILLING, PREFIX + ".order-bulk.dlq", CREATE, DESCRIBE_CONFIGS, WRITE),
          new Grant(BILLING, GROUP, BILLING_GROUP, LITERAL, List.of(READ)),
          // the monitor's Kafka Streams application reads orders and invoices, writes alerts,
          // and owns its group and internal topics (repartition, changelog)
          topic(MONITOR, PREFIX + ".order", CREATE, DESCRIBE_CONFIGS, READ),
          topic(MONITOR, PREFIX + ".order-bulk", CREATE, DESCRIBE_CONFIGS, READ),
          topic(MONITOR, PREFIX + ".invoice", CREATE, DESCRIBE_CONFIGS, READ),
          topic(MONITOR, PREFIX + ".alerts", CREATE, DESCRIBE_CONFIGS, WRITE),
          new Grant(MONITOR, GROUP, APPLICATION_ID, LITERAL, List.of(READ)),
          new Grant(
              MONITOR,
              TOPIC,
              APPLICATION_ID + "-",
              PREFIXED,
              List.of(CREATE, DELETE, DESCRIBE_CONFIGS, READ, WRITE)),
          // lag and replay read and move billing's group; dlq list/redrive read the dead letters
          // and write them back; relay republish writes the outboxes' topics again
          new Grant(OPERATOR, GROUP, BILLING_GROUP, LITERAL, List.of(READ)),
          topic(OPERATOR, PREFIX + ".order", CREATE, DESCRIBE_CONFIGS, READ, WRITE),
          topic(OPERATOR, PREFIX + ".order-bulk", CREATE, DESCRIBE_CONFIGS, READ, WRITE),
          topic(OPERATOR, PREFIX + ".invoice", CREATE, DESCRIBE_CONFIGS, WRITE),
          topic(OPERATOR, PREFIX + ".order.dlq", READ),
          topic(OPERATOR, PREFIX + ".order-bulk.dlq", READ));

  private ServiceAcls() {}

  private static Grant topic(String user, String name, AclOperation... operations) {
    return new Grant(user, TOPIC, name, LITERAL, List.of(operations));
  }

  /** The grants of {@code user}. */
  public static List<Grant> of(String user) {
    return GRANTS.stream().filter(g -> g.user().equals(user)).toList();
  }

  /** The bindings of every grant of {@code user}, named by {@code names}. */
  public static List<AclBinding> bindings(String user, Names names) {
    return of(user).stream().flatMap(g -> g.bindings(names).stream()).toList();
  }
}

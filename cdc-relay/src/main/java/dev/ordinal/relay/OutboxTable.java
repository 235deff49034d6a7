package dev.ordinal.relay;

import dev.ordinal.messaging.ConfigurationException;
import dev.ordinal.relay.internal.PollingOutbox;
import dev.ordinal.runtime.settings.Check;
import dev.ordinal.runtime.settings.Setting;
import java.nio.charset.StandardCharsets;
import java.time.OffsetDateTime;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.Name;
import org.jooq.SelectField;
import org.jooq.Table;
import org.jooq.impl.DSL;
import org.jooq.impl.SQLDataType;

/**
 * The outbox table a relay reads: Ordinal's own ({@code <schema>.outbox} with the columns of {@link
 * Column}'s names and a {@code jsonb} payload) unless told otherwise, so a team points the relays
 * at the table it already has. Each column of {@link Column} is named by {@link #columns}; {@code
 * traceparent} may be {@code none}. {@code tracestate} is optional: Ordinal's own outbox has it, a
 * team's table only when {@code tracestate=<column>} names it (so a table set up before the column
 * existed is read as it was), and {@code tracestate=none} leaves it out of Ordinal's own. The id
 * column must be a {@code uuid}, {@code occurred_at} a {@code timestamptz}; the payload is {@link
 * PayloadType} ({@link #check} compares both with the table).
 *
 * @param table the table's name, in the relay's schema
 * @param columns the table's column for each of Ordinal's, all present but a traceparent or
 *     tracestate column the table does not have
 * @param payloadType what the payload column holds
 */
public record OutboxTable(String table, Map<Column, String> columns, PayloadType payloadType) {
  /** What an outbox row says, by Ordinal's column names. */
  public enum Column {
    ID,
    AGGREGATE_TYPE,
    AGGREGATE_ID,
    EVENT_TYPE,
    PAYLOAD,
    OCCURRED_AT,
    TRACEPARENT,
    TRACESTATE;

    /** Whether a table may lack it ({@code <name>=none}): the trace context's columns. */
    public boolean optional() {
      return this == TRACEPARENT || this == TRACESTATE;
    }

    /** Ordinal's name of it, {@code aggregate_id}. */
    public String ordinalName() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  /** The SQL type of the payload column; the record's value is its text (its bytes for bytea). */
  public enum PayloadType {
    JSONB,
    JSON,
    TEXT,
    BYTEA;

    /** Its name in PostgreSQL's {@code information_schema.columns.data_type}. */
    public String sqlName() {
      return this == JSONB || this == JSON || this == BYTEA
          ? name().toLowerCase(Locale.ROOT)
          : "text";
    }
  }

  private static final String PAYLOAD_ALIAS = "ordinal_payload";

  private static final Check<String> IDENTIFIER =
      Check.matches(
          "[A-Za-z_][A-Za-z0-9_$]{0,62}",
          "a PostgreSQL identifier: a letter or '_', then letters, digits, '_' or '$'");

  private static final String DEFAULT_TABLE = "outbox";

  public static final Setting<String> TABLE =
      Setting.string(
          "outbox-table",
          DEFAULT_TABLE,
          "The outbox table in each --schema, for a table of the team's own",
          IDENTIFIER);

  public static final Setting<List<String>> COLUMNS =
      Setting.list(
          "outbox-column",
          String.class,
          s -> s,
          List.of(),
          "Ordinal's names",
          "Columns of a table of the team's own, as ordinal-name=column (id, aggregate_type,"
              + " aggregate_id, event_type, payload, occurred_at, traceparent, tracestate;"
              + " traceparent=none when it has none; tracestate only when it has one),"
              + " comma-separated or repeated",
          OutboxTable::columnsProblem);

  public static final Setting<PayloadType> PAYLOAD_TYPE =
      Setting.choice(
          "payload-type",
          PayloadType.class,
          PayloadType.JSONB,
          "SQL type of the payload column: jsonb, json, text or bytea");

  /** Ordinal's outbox: {@code outbox}, the columns by their own names, a {@code jsonb} payload. */
  public static final OutboxTable DEFAULT = of(DEFAULT_TABLE, List.of(), PayloadType.JSONB);

  public OutboxTable {
    ConfigurationException.check(TABLE, table);
    columns = java.util.Collections.unmodifiableMap(new EnumMap<>(columns));
    for (Column c : Column.values()) {
      if (!columns.containsKey(c) && !c.optional()) {
        throw new IllegalArgumentException("no column for " + c.ordinalName());
      }
    }
  }

  /**
   * The table {@code table} with Ordinal's column names but those {@code renames} names ({@code
   * aggregate_id=entity_id}, {@code traceparent=none}).
   *
   * @throws ConfigurationException naming {@code --outbox-column} when one is malformed
   */
  public static OutboxTable of(String table, List<String> renames, PayloadType payloadType) {
    ConfigurationException.check(COLUMNS, renames);
    Map<Column, String> columns = new EnumMap<>(Column.class);
    for (Column c : Column.values()) {
      if (c != Column.TRACESTATE || isOrdinals(table, renames, payloadType)) {
        columns.put(c, c.ordinalName());
      }
    }
    for (String rename : renames) {
      String[] kv = rename.split("=", 2);
      Column c = Column.valueOf(kv[0].trim().toUpperCase(Locale.ROOT));
      String column = kv[1].trim();
      if (c.optional() && column.equals("none")) {
        columns.remove(c);
      } else {
        columns.put(c, column);
      }
    }
    return new OutboxTable(table, columns, payloadType);
  }

  /**
   * Whether these settings name Ordinal's own outbox, whose migrations give it every column: the
   * table {@code outbox}, no column renamed, a jsonb payload.
   */
  private static boolean isOrdinals(String table, List<String> renames, PayloadType payloadType) {
    return table.equals(DEFAULT_TABLE) && renames.isEmpty() && payloadType == PayloadType.JSONB;
  }

  private static String columnsProblem(List<String> renames) {
    for (String rename : renames) {
      String[] kv = rename.split("=", 2);
      if (kv.length != 2) {
        return "must be ordinal-name=column, not " + rename;
      }
      String name = kv[0].trim().toUpperCase(Locale.ROOT);
      if (java.util.Arrays.stream(Column.values()).noneMatch(c -> c.name().equals(name))) {
        return "names no column of Ordinal's (id, aggregate_type, aggregate_id, event_type,"
            + " payload, occurred_at, traceparent, tracestate): "
            + kv[0];
      }
      String column = kv[1].trim();
      String problem =
          Column.valueOf(name).optional() && column.equals("none")
              ? null
              : IDENTIFIER.problem(column);
      if (problem != null) {
        return "names a column that is not "
            + problem.replaceFirst("^must be ", "")
            + ": "
            + column;
      }
    }
    return renames.stream()
                .map(r -> r.split("=", 2)[0].trim().toLowerCase(Locale.ROOT))
                .distinct()
                .count()
            == renames.size()
        ? null
        : "names a column twice: " + renames;
  }

  /** The {@link #COLUMNS} that give this table from Ordinal's names. */
  public List<String> renames() {
    List<String> renames = new java.util.ArrayList<>();
    for (Column c : Column.values()) {
      String column = columns.get(c);
      if (c == Column.TRACESTATE) {
        continue;
      }
      if (column == null) {
        renames.add(c.ordinalName() + "=none");
      } else if (!column.equals(c.ordinalName())) {
        renames.add(c.ordinalName() + "=" + column);
      }
    }
    // tracestate goes without saying only where of() takes it for granted: Ordinal's own outbox
    String tracestate = columns.get(Column.TRACESTATE);
    boolean implied = isOrdinals(table, renames, payloadType);
    if (tracestate == null && implied) {
      renames.add(Column.TRACESTATE.ordinalName() + "=none");
    } else if (tracestate != null && !(implied && tracestate.equals("tracestate"))) {
      renames.add(Column.TRACESTATE.ordinalName() + "=" + tracestate);
    }
    return renames;
  }

  /** An outbox row id as an option gives it ({@code --skip-event}). */
  static UUID rowId(String text) {
    try {
      return UUID.fromString(text.trim());
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("'" + text + "' is not an outbox row id (a UUID)");
    }
  }

  /**
   * Checks that the table in {@code schema} has each column, the id a {@code uuid}, {@code
   * occurred_at} a {@code timestamptz} and the payload {@link #payloadType}.
   *
   * @throws ConfigurationException naming the setting to fix, in one sentence
   */
  public void check(DSLContext dsl, String schema) {
    Field<String> name = DSL.field(DSL.name("column_name"), String.class);
    Field<String> type = DSL.field(DSL.name("data_type"), String.class);
    Map<String, String> types =
        dsl.select(name, type)
            .from(DSL.table(DSL.name("information_schema", "columns")))
            .where(DSL.field(DSL.name("table_schema"), String.class).eq(schema))
            .and(DSL.field(DSL.name("table_name"), String.class).eq(table))
            .fetchMap(name, type);
    if (types.isEmpty()) {
      throw new ConfigurationException(
          "There is no table " + qualified(schema) + ": set " + TABLE.option() + " to the outbox.");
    }
    for (Map.Entry<Column, String> e : columns.entrySet()) {
      String actual = types.get(e.getValue());
      if (actual == null && e.getKey() == Column.TRACESTATE && equals(DEFAULT)) {
        throw new ConfigurationException(
            qualified(schema)
                + " has no column tracestate: it is Ordinal's outbox from before messaging's"
                + " migration V5; start the upgraded service that owns "
                + schema
                + " once (it migrates its outbox) before this relay, or set "
                + COLUMNS.option()
                + " tracestate=none.");
      }
      if (actual == null) {
        throw new ConfigurationException(
            qualified(schema)
                + " has no column "
                + e.getValue()
                + ": name its "
                + e.getKey().ordinalName()
                + " column with "
                + COLUMNS.option()
                + " "
                + e.getKey().ordinalName()
                + "=<column>.");
      }
      String wanted =
          switch (e.getKey()) {
            case ID -> "uuid";
            case OCCURRED_AT -> "timestamp with time zone";
            case PAYLOAD -> payloadType.sqlName();
            default -> null;
          };
      boolean text = actual.equals("text") || actual.equals("character varying");
      if (wanted != null && !actual.equals(wanted) && !(wanted.equals("text") && text)) {
        throw new ConfigurationException(
            "Column "
                + e.getValue()
                + " of "
                + qualified(schema)
                + " is "
                + actual
                + ", not "
                + wanted
                + (e.getKey() == Column.PAYLOAD
                    ? ": set " + PAYLOAD_TYPE.option() + " to what it holds."
                    : ": the relays need its "
                        + e.getKey().ordinalName()
                        + " to be "
                        + wanted
                        + "."));
      }
    }
  }

  /** Whether this is Ordinal's own outbox (its columns, its types). */
  public boolean isDefault() {
    return equals(DEFAULT);
  }

  /** The table's column for {@code c}; null for a traceparent or tracestate it does not have. */
  public String column(Column c) {
    return columns.get(c);
  }

  /** The table, in {@code schema}. */
  public Table<?> in(String schema) {
    return DSL.table(DSL.name(schema, table));
  }

  /** The table's qualified name, {@code schema.table}, as Debezium's include list names it. */
  public String qualified(String schema) {
    return schema + "." + table;
  }

  public Field<UUID> id() {
    return DSL.field(name(Column.ID), SQLDataType.UUID);
  }

  public Field<OffsetDateTime> occurredAt() {
    return DSL.field(name(Column.OCCURRED_AT), SQLDataType.TIMESTAMPWITHTIMEZONE);
  }

  /** A text column of {@code c} (aggregate type and id, event type, traceparent, tracestate). */
  public Field<String> text(Column c) {
    return columns.containsKey(c)
        ? DSL.field(name(c), SQLDataType.VARCHAR)
        : DSL.inline(null, SQLDataType.VARCHAR);
  }

  /**
   * When the database wrote a row: Ordinal's {@code written_at}, or for a team's own table its
   * {@code occurred_at} column, which is all it has.
   */
  public Field<OffsetDateTime> writtenAt() {
    return isDefault()
        ? DSL.field(DSL.name("written_at"), SQLDataType.TIMESTAMPWITHTIMEZONE)
        : occurredAt();
  }

  /** The columns {@link #row} reads. */
  public List<SelectField<?>> rowFields() {
    return List.of(
        id(),
        text(Column.AGGREGATE_TYPE),
        text(Column.AGGREGATE_ID),
        text(Column.EVENT_TYPE),
        payload(),
        occurredAt(),
        text(Column.TRACEPARENT).as("ordinal_traceparent"),
        text(Column.TRACESTATE).as("ordinal_tracestate"));
  }

  /** The row of a record of {@link #rowFields}. */
  public PollingOutbox.Row row(org.jooq.Record r) {
    byte[] payload = payloadOf(r);
    return new PollingOutbox.Row(
        r.get(id()),
        r.get(text(Column.AGGREGATE_TYPE)),
        r.get(text(Column.AGGREGATE_ID)),
        r.get(text(Column.EVENT_TYPE)),
        payload == null ? null : new String(payload, StandardCharsets.UTF_8),
        r.get(occurredAt()),
        r.get("ordinal_traceparent", String.class),
        r.get("ordinal_tracestate", String.class));
  }

  /** The payload column as selected: its text, or its bytes for bytea ({@link #payloadOf}). */
  public Field<?> payload() {
    Field<Object> column = DSL.field(name(Column.PAYLOAD));
    return (payloadType == PayloadType.BYTEA
            ? column.coerce(SQLDataType.BLOB)
            : column.cast(SQLDataType.CLOB))
        .as(PAYLOAD_ALIAS);
  }

  /** The record's value: the payload's text in UTF-8, or its bytes for bytea. */
  public byte[] payloadOf(org.jooq.Record r) {
    Object v = r.get(PAYLOAD_ALIAS);
    return v == null
        ? null
        : v instanceof byte[] b ? b : v.toString().getBytes(StandardCharsets.UTF_8);
  }

  private Name name(Column c) {
    return DSL.name(columns.get(c));
  }
}

package dev.ordinal.lab.bench;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import org.jooq.DSLContext;
import org.jooq.exception.DataAccessException;
import org.jooq.impl.DSL;

/**
 * Where the WAL between two positions went: the bytes of its records by the relation each record
 * changes (its first block), from PostgreSQL's {@code pg_walinspect} (installed in {@code public}
 * if missing, which needs a superuser, as the embedded server's is). Records that change no
 * relation (commits, for one) are counted under their resource manager, e.g. {@code (Transaction)}.
 * A record's own length is counted, not the page headers and alignment between records, so the
 * total is a little under the LSN difference.
 */
final class WalByRelation {
  /** What a report says when the breakdown cannot be read. */
  static final String UNAVAILABLE = "n/a: pg_walinspect is not installed and could not be";

  private WalByRelation() {}

  /** The server's current WAL insert position, to pass to {@link #between}. */
  static String position(DSLContext dsl) {
    return dsl.fetchValue(DSL.field("pg_current_wal_lsn()::text", String.class));
  }

  /**
   * Bytes by relation name (or {@code (resource manager)}), largest first; empty when {@code
   * pg_walinspect} is not there and cannot be installed.
   */
  static Optional<Map<String, Long>> between(DSLContext dsl, String from, String to) {
    try {
      dsl.execute("create extension if not exists pg_walinspect with schema public");
      Map<String, Long> bytes = new LinkedHashMap<>();
      dsl.resultQuery(
              """
              with recs as (
                select start_lsn, resource_manager, record_length
                from public.pg_get_wal_records_info({0}::pg_lsn, {1}::pg_lsn)
              ), blocks as (
                select distinct on (start_lsn) start_lsn, reltablespace, relfilenode, reldatabase
                from public.pg_get_wal_block_info({0}::pg_lsn, {1}::pg_lsn, false)
                order by start_lsn, block_id
              )
              select coalesce(
                       (select c.relname::text
                        from pg_class c
                        where c.relfilenode = b.relfilenode
                          and b.reldatabase = (select oid from pg_database
                                               where datname = current_database())
                        limit 1),
                       '(' || r.resource_manager || ')') as what,
                     sum(r.record_length)::bigint as bytes
              from recs r left join blocks b using (start_lsn)
              group by 1
              order by 2 desc
              """,
              DSL.val(from), DSL.val(to))
          .forEach(r -> bytes.put(r.get(0, String.class), r.get(1, Long.class)));
      return Optional.of(bytes);
    } catch (DataAccessException e) {
      return Optional.empty();
    }
  }

  /**
   * {@code name bytes, ...} per operation (bytes divided by {@code operations}), the {@code top}
   * largest and the rest summed as {@code other}.
   */
  static String perOperation(Map<String, Long> bytes, long operations, int top) {
    StringBuilder out = new StringBuilder();
    long rest = 0;
    int shown = 0;
    for (Map.Entry<String, Long> e : bytes.entrySet()) {
      if (shown < top) {
        if (out.length() > 0) {
          out.append(", ");
        }
        out.append(e.getKey()).append(' ').append(Math.round((double) e.getValue() / operations));
        shown++;
      } else {
        rest += e.getValue();
      }
    }
    if (rest > 0) {
      out.append(", other ").append(Math.round((double) rest / operations));
    }
    return out.toString();
  }
}

package dev.ordinal.messaging.inbox.internal;

import java.sql.SQLException;

/** Which failures retrying cannot cure, and how a failure is told in one line. */
public final class ErrorKinds {
  private ErrorKinds() {}

  /**
   * True when retrying the same record cannot succeed: PostgreSQL's data exceptions (SQLSTATE class
   * 22) and integrity violations (23), which a message's values cause. Everything else is the
   * environment's and passes once it is mended: the server away, a deadlock, a timeout, and syntax
   * or access rule violations (42: a grant revoked, a column a migration renamed, a table not yet
   * made), which no message causes (every statement takes its values as bind values), so they would
   * otherwise send every record to the dead-letter topic.
   */
  public static boolean isPermanent(Throwable e) {
    SQLException sql = sqlCause(e);
    String state = sql == null ? null : sql.getSQLState();
    return state != null && (state.startsWith("22") || state.startsWith("23"));
  }

  /** The SQLSTATE and the database's message, or the exception's message, on one line. */
  static String describe(Throwable e) {
    SQLException sql = sqlCause(e);
    if (sql == null) {
      return oneLine(e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage());
    }
    return (sql.getSQLState() == null ? "" : "SQLSTATE " + sql.getSQLState() + ": ")
        + oneLine(sql.getMessage());
  }

  static String oneLine(String s) {
    return s == null ? "" : s.replace('\n', ' ');
  }

  /** The first SQL exception among {@code e}'s causes, or null. */
  private static SQLException sqlCause(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof SQLException sql) {
        return sql;
      }
    }
    return null;
  }
}

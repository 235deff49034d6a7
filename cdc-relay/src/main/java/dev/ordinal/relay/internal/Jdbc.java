package dev.ordinal.relay.internal;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.Properties;
import org.slf4j.Logger;

/** The relay's own JDBC connections: how they are opened and how they are let go. */
final class Jdbc {
  private Jdbc() {}

  /** Connection properties: the login, a 5 s connect timeout and a 10 s socket timeout. */
  static Properties props(String user, String password) {
    Properties props = new Properties();
    props.setProperty("user", user);
    props.setProperty("password", password);
    props.setProperty("connectTimeout", "5");
    props.setProperty("socketTimeout", "10");
    return props;
  }

  /** {@link #props(String, String)}, the session named {@code applicationName} on the server. */
  static Properties props(String user, String password, String applicationName) {
    Properties props = props(user, password);
    props.setProperty("ApplicationName", applicationName);
    return props;
  }

  /**
   * Closes {@code c} if there is one; a failure to close is only logged at debug level on {@code
   * log}, as "Closing {@code what}: the message".
   */
  static void closeQuietly(Connection c, Logger log, String what) {
    if (c != null) {
      try {
        c.close();
      } catch (SQLException e) {
        log.debug("Closing {}: {}", what, e.getMessage());
      }
    }
  }
}

package dev.ordinal.relay.internal;

import io.debezium.jdbc.JdbcConfiguration;
import io.debezium.jdbc.JdbcConnection;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Properties;
import org.postgresql.Driver;

/**
 * Debezium's connections, the replication stream's included, made from the relay's own JDBC URL
 * ({@value #URL_KEY}) rather than from {@code database.hostname} and {@code database.port}, which
 * name one host and drop every URL parameter: so a multi-host URL ({@code
 * targetServerType=primary}) follows a failover, and {@code sslmode}, {@code sslrootcert} and the
 * other parameters apply to the stream that carries every event. Debezium's own settings ({@code
 * replication=database}, {@code preferQueryMode=simple}, user, password) are passed as properties;
 * a parameter in the URL wins over a property of the same name, as pgjdbc does.
 */
public final class UrlConnectionFactory implements JdbcConnection.ConnectionFactory {
  /** The Debezium property ({@code database.} + this) holding the URL, without any password. */
  public static final String URL_KEY = "ordinal.url";

  @Override
  public Connection connect(JdbcConfiguration config) throws SQLException {
    Properties props = config.asProperties();
    String url = props.getProperty(URL_KEY);
    if (url == null) {
      throw new SQLException("The relay's connection factory was given no database." + URL_KEY);
    }
    for (String notForTheDriver :
        new String[] {URL_KEY, "connection.factory.class", "hostname", "port", "dbname"}) {
      props.remove(notForTheDriver);
    }
    Connection c = new Driver().connect(url, props);
    if (c == null) {
      throw new SQLException("Not a PostgreSQL JDBC URL: database." + URL_KEY);
    }
    return c;
  }
}

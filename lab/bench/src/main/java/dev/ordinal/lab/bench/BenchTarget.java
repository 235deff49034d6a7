package dev.ordinal.lab.bench;

import com.zaxxer.hikari.HikariDataSource;
import dev.ordinal.messaging.db.DatabaseSettings;
import java.util.function.Consumer;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;

/**
 * What a bench measures on: the database (a role that may create schemas, publications and
 * replication slots), the broker at {@code bootstrap}, where its progress lines go, and its admin
 * pool with that pool's jOOQ context. Closing it closes the pool.
 */
record BenchTarget(
    DatabaseSettings db,
    String bootstrap,
    Consumer<String> progress,
    HikariDataSource adminPool,
    DSLContext admin)
    implements AutoCloseable {

  /** Opens an admin pool of two connections on {@code db}, named {@code poolName}. */
  static BenchTarget open(
      DatabaseSettings db, String bootstrap, Consumer<String> progress, String poolName) {
    HikariDataSource pool = db.pool(poolName, 2);
    return new BenchTarget(db, bootstrap, progress, pool, DSL.using(pool, SQLDialect.POSTGRES));
  }

  /** One line of progress. */
  void progress(String line) {
    progress.accept(line);
  }

  @Override
  public void close() {
    adminPool.close();
  }
}

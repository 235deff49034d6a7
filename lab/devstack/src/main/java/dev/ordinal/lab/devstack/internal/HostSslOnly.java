package dev.ordinal.lab.devstack.internal;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The {@code pg_hba.conf} of an embedded PostgreSQL that takes only TLS: {@code hostssl} lines for
 * every database and for replication, from the loopback addresses, and nothing else. It lives
 * beside the data directory ({@code <dataDir>-pg_hba.conf}), not in it: zonky's {@code initdb}
 * needs an empty directory, and the server reads the file through {@code hba_file}.
 */
public final class HostSslOnly {
  private static final String LINES =
      """
      # written by the Ordinal dev stack: TLS only, from this machine only
      # TYPE  DATABASE     USER  ADDRESS       METHOD
      hostssl all          all   127.0.0.1/32  trust
      hostssl all          all   ::1/128       trust
      hostssl replication  all   127.0.0.1/32  trust
      hostssl replication  all   ::1/128       trust
      """;

  private HostSslOnly() {}

  /** Where the file of the server on {@code dataDir} is. */
  public static Path fileOf(Path dataDir) {
    return dataDir.resolveSibling(dataDir.getFileName() + "-pg_hba.conf");
  }

  /** Writes the file for the server on {@code dataDir}, replacing any; returns its path. */
  public static Path write(Path dataDir) throws IOException {
    Path file = fileOf(dataDir);
    Files.createDirectories(file.toAbsolutePath().getParent());
    Files.writeString(file, LINES);
    return file;
  }
}

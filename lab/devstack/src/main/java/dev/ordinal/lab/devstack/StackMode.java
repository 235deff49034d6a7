package dev.ordinal.lab.devstack;

/** Where the PostgreSQL server and the Kafka broker come from. */
public enum StackMode {
  /** Real PostgreSQL (zonky binaries) and a real in-process KRaft broker; the default. */
  EMBEDDED,
  /** Servers the user already runs, given by JDBC URL and bootstrap address. */
  EXTERNAL,
  /** Testcontainers; needs a Docker engine and fails fast without one. */
  TESTCONTAINERS
}

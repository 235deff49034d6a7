package dev.ordinal.runtime;

import java.util.Objects;

/**
 * A server a service needs, and how to ask whether it answers: {@code /health/ready} is 503 while a
 * check fails, and a service waits at start until each of its servers answers.
 *
 * @param name how health and logs name it, e.g. {@code postgresql}
 * @param setting the setting that points at it, e.g. {@code ORDINAL_DB_URL}, named in the lines
 *     logged while waiting
 * @param address where it is, without secrets (a redacted URL, a bootstrap list)
 * @param probe asks it once, within a few seconds: returns when it answers, throws {@link
 *     ServerUnavailableException} when it does not answer yet, any other exception when it answers
 *     but refuses the service (a wrong password, a missing grant): a configuration to fix, not
 *     something to wait for
 */
public record ServerCheck(String name, String setting, String address, Probe probe) {
  public ServerCheck {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(setting, "setting");
    Objects.requireNonNull(address, "address");
    Objects.requireNonNull(probe, "probe");
  }

  /** One question to the server. */
  @FunctionalInterface
  public interface Probe {
    void check() throws Exception;
  }
}

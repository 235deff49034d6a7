package dev.ordinal.runtime;

import java.time.Instant;

/**
 * A server as {@code /health/ready} shows it.
 *
 * @param name e.g. {@code postgresql}
 * @param setting the setting that points at it
 * @param address where it is (no secrets)
 * @param up whether it answered the last check
 * @param since when {@code up} last changed
 * @param lastError why the last failed check failed, or null
 */
public record ServerHealth(
    String name, String setting, String address, boolean up, Instant since, String lastError) {}

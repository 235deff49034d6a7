package dev.ordinal.runtime;

import java.time.Instant;

/**
 * One loop as {@code /health/ready} shows it.
 *
 * @param name the loop's name, unique in its service
 * @param state where it is
 * @param since when it entered {@code state}
 * @param restarts how often it failed and ran again (or backed off in place) since the start
 * @param lastError the last failure's message with its causes, or null
 * @param lastErrorAt when that was, or null
 */
public record LoopHealth(
    String name,
    LoopState state,
    Instant since,
    long restarts,
    String lastError,
    Instant lastErrorAt) {}

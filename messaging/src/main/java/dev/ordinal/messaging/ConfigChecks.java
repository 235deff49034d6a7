package dev.ordinal.messaging;

import java.time.Duration;

/**
 * The checks the components' configurations share for a field that is not a command-line {@link
 * dev.ordinal.runtime.settings.Setting} (those are checked by {@link
 * ConfigurationException#check}): each refuses with one {@link ConfigurationException} sentence
 * naming the field.
 */
public final class ConfigChecks {
  private ConfigChecks() {}

  /**
   * {@code value}, or {@code whenNull} when it is null; longer than zero.
   *
   * @throws ConfigurationException {@code interval must be positive: PT0S}
   */
  public static Duration positive(String field, Duration value, Duration whenNull) {
    Duration v = value == null ? whenNull : value;
    if (v.isNegative() || v.isZero()) {
      throw new ConfigurationException(field + " must be positive: " + v);
    }
    return v;
  }

  /**
   * {@code kafkaBootstrap}, when it names servers.
   *
   * @param who the subject of the sentence: {@code The relay}
   * @throws ConfigurationException {@code The relay needs Kafka bootstrap servers: set
   *     ORDINAL_KAFKA_BOOTSTRAP.}
   */
  public static String kafkaBootstrap(String kafkaBootstrap, String who) {
    if (kafkaBootstrap == null || kafkaBootstrap.isBlank()) {
      throw new ConfigurationException(
          who + " needs Kafka bootstrap servers: set " + Preflight.KAFKA_SETTING + ".");
    }
    return kafkaBootstrap;
  }

  /**
   * {@code value}, when it is 1 to {@code max}.
   *
   * @throws ConfigurationException {@code batchSize must be between 1 and 10000: 0}
   */
  public static int oneTo(String field, int value, int max) {
    if (value < 1 || value > max) {
      throw new ConfigurationException(field + " must be between 1 and " + max + ": " + value);
    }
    return value;
  }

  /**
   * Checks that the longest wait between retries is not shorter than the first.
   *
   * @throws ConfigurationException {@code maxBackoff must not be shorter than initialBackoff}
   */
  public static void backoff(Duration initialBackoff, Duration maxBackoff) {
    if (maxBackoff.compareTo(initialBackoff) < 0) {
      throw new ConfigurationException("maxBackoff must not be shorter than initialBackoff");
    }
  }
}

package dev.ordinal.messaging;

import dev.ordinal.runtime.settings.Setting;

/**
 * Fatal: the process cannot start with this configuration. The message is one sentence naming the
 * setting to fix; it never contains a password. Do not retry; fix the setting.
 */
public class ConfigurationException extends MessagingException {
  public ConfigurationException(String message) {
    super(message, REFUSED);
  }

  public ConfigurationException(String message, Throwable cause) {
    super(message, cause, REFUSED);
  }

  /**
   * {@code value}, when {@code setting} takes it.
   *
   * @throws ConfigurationException the setting's sentence naming the option, e.g. {@code
   *     --concurrency must be 1 to 256, not 0}
   */
  public static <T> T check(Setting<T> setting, T value) {
    setting
        .problem(value)
        .ifPresent(
            p -> {
              throw new ConfigurationException(p);
            });
    return value;
  }
}

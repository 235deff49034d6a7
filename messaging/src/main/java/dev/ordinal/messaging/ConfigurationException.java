package dev.ordinal.messaging;

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
}

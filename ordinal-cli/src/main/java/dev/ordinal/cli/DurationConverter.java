package dev.ordinal.cli;

import dev.ordinal.runtime.settings.Durations;
import java.time.Duration;
import picocli.CommandLine;

/**
 * The one converter of every duration option, the product's and the lab's: ISO-8601 ({@code PT30S})
 * or the short form ({@code 30s}, {@code 2m}, {@code 500ms}, {@code 1h}, {@code 7d}), as {@link
 * Durations} reads them. Anything else is {@code 'soon' is not a duration; use e.g. 30s, 2m or
 * PT30S}, which picocli prefixes with the option's name.
 */
public final class DurationConverter implements CommandLine.ITypeConverter<Duration> {
  @Override
  public Duration convert(String value) {
    try {
      return Durations.parse(value);
    } catch (IllegalArgumentException e) {
      throw new CommandLine.TypeConversionException(e.getMessage());
    }
  }
}

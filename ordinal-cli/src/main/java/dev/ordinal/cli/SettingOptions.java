package dev.ordinal.cli;

import dev.ordinal.messaging.ConfigurationException;
import dev.ordinal.runtime.settings.Setting;
import dev.ordinal.runtime.settings.SettingValues;
import java.time.Duration;
import java.util.List;
import java.util.function.Supplier;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * A service command's options, derived from its settings ({@link Setting}): each setting is one
 * option named {@code --<name>}, with the setting's description and its default as {@code --help}
 * shows it, read with the setting's parser (a duration with the one {@link DurationConverter}). The
 * environment variable and the {@code ORDINAL_CONFIG} key follow from the option ({@link
 * Settings}). A command names its settings by a subclass given as its {@code @Command}'s {@code
 * modelTransformer}, and reads their values with {@link #values}.
 */
class SettingOptions implements CommandLine.IModelTransformer {
  private final List<Setting<?>> settings;

  SettingOptions(List<Setting<?>> settings) {
    this.settings = settings;
  }

  /** The settings these options are of. */
  List<Setting<?>> settings() {
    return settings;
  }

  @Override
  public CommandSpec transform(CommandSpec spec) {
    for (Setting<?> s : settings) {
      spec.addOption(option(s));
    }
    return spec;
  }

  /** The option of {@code setting}. */
  static OptionSpec option(Setting<?> setting) {
    OptionSpec.Builder b =
        OptionSpec.builder(setting.option())
            .paramLabel("<" + setting.name() + ">")
            .description(help(setting));
    switch (setting.kind()) {
      case FLAG -> {
        b.arity("0").type(boolean.class).defaultValue(setting.defaultText());
        if (Boolean.TRUE.equals(setting.defaultValue())) {
          b.negatable(true);
        }
      }
      case LIST -> {
        b.type(List.class)
            .auxiliaryTypes(setting.type())
            .splitRegex(",")
            .converters(converter(setting));
        if (hasDefaultValue(setting)) {
          b.defaultValue(setting.defaultText());
        }
      }
      case VALUE -> {
        b.type(setting.type()).converters(converter(setting));
        if (setting.hasDefault()) {
          b.defaultValue(setting.defaultText());
        }
      }
      default -> throw new IllegalStateException("no option for " + setting.kind());
    }
    return b.build();
  }

  /**
   * The option's line in {@code --help}: the setting's description and its default; picocli shows
   * the default the environment or the {@code ORDINAL_CONFIG} file gives, if any.
   */
  static String help(Setting<?> setting) {
    // picocli formats descriptions: a '%' of the text is a literal one
    String text = setting.description().replace("%", "%%");
    if (setting.kind() == Setting.Kind.FLAG && !Boolean.TRUE.equals(setting.defaultValue())) {
      return text + ".";
    }
    return text
        + " (default "
        + (hasDefaultValue(setting) ? "${DEFAULT-VALUE}" : setting.defaultText())
        + ").";
  }

  /**
   * True when the setting's default is a value ({@code 4}, {@code 30s}); false when its {@link
   * Setting#defaultText()} says in words what happens without one ({@code random}, {@code none}).
   */
  static boolean hasDefaultValue(Setting<?> setting) {
    return setting.hasDefault()
        && !(setting.kind() == Setting.Kind.LIST && ((List<?>) setting.defaultValue()).isEmpty());
  }

  private static CommandLine.ITypeConverter<?> converter(Setting<?> setting) {
    if (setting.type() == Duration.class) {
      return new DurationConverter();
    }
    return text -> {
      try {
        return setting.parseElement(text);
      } catch (IllegalArgumentException e) {
        throw new CommandLine.TypeConversionException(e.getMessage());
      }
    };
  }

  /** The values of {@code settings} on {@code spec}'s command line (or their defaults). */
  static SettingValues values(CommandSpec spec, List<Setting<?>> settings) {
    SettingValues values = new SettingValues(settings);
    for (Setting<?> s : settings) {
      OptionSpec option = spec.findOption(s.option());
      if (option == null) {
        throw new IllegalStateException(spec.qualifiedName() + " has no option " + s.option());
      }
      set(values, s, s.kind() == Setting.Kind.FLAG ? flag(spec, option) : option.getValue());
    }
    return values;
  }

  /**
   * A flag's value: picocli sets a negatable flag that is on by default to false when its positive
   * form is given and to true for its negated form, so the form given decides here: {@code
   * --create-publication} on, {@code --no-create-publication} off; not given, the default (the
   * variable's or the file's, if set).
   */
  private static Object flag(CommandSpec spec, OptionSpec option) {
    CommandLine.ParseResult parsed =
        spec.commandLine() == null ? null : spec.commandLine().getParseResult();
    if (!option.negatable() || parsed == null || !parsed.hasMatchedOption(option)) {
      return option.getValue();
    }
    String positive = option.longestName();
    String negated = "--no-" + positive.substring(2);
    Boolean given = null;
    for (String arg : parsed.originalArgs()) {
      if (arg.equals(positive)) {
        given = true;
      } else if (arg.equals(negated)) {
        given = false;
      }
    }
    return given != null ? given : option.getValue();
  }

  @SuppressWarnings("unchecked")
  private static <T> void set(SettingValues values, Setting<T> setting, Object value) {
    if (value instanceof List<?> list) {
      value = List.copyOf(list);
    }
    values.set(setting, (T) value);
  }

  /**
   * {@code settings}, built from the options; a value they refuse is picocli's error (one sentence
   * naming the option, exit status 2).
   */
  static <S> S checked(CommandSpec spec, Supplier<S> settings) {
    try {
      return settings.get();
    } catch (ConfigurationException e) {
      throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
    }
  }
}

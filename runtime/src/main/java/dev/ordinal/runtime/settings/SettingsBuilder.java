package dev.ordinal.runtime.settings;

import java.util.List;

/**
 * What every service's settings builder shares: the {@link SettingValues} of its settings, set one
 * at a time ({@link #set}) or from the command line's ({@link #with}); a setting not set takes its
 * default. A subclass adds its named setters and builds (and checks) its settings record.
 *
 * @param <B> the builder itself, which every setter returns
 */
public abstract class SettingsBuilder<B extends SettingsBuilder<B>> {
  /** The values set so far; {@link SettingValues#get} answers the default of one not set. */
  protected final SettingValues values;

  /** A builder of {@code settings}, none set yet. */
  protected SettingsBuilder(List<? extends Setting<?>> settings) {
    this.values = new SettingValues(settings);
  }

  /**
   * Any of the settings this builder was made for (null: back to the default).
   *
   * @throws IllegalArgumentException when {@code setting} is not one of them
   */
  public <T> B set(Setting<T> setting, T value) {
    values.set(setting, value);
    return self();
  }

  /** Every value {@code settings} has set (the command line's, for one). */
  public B with(SettingValues settings) {
    values.setAll(settings);
    return self();
  }

  @SuppressWarnings("unchecked")
  private B self() {
    return (B) this;
  }
}

package dev.ordinal.runtime.settings;

import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * Values of a service's settings, each one not set falling back to its setting's default: what a
 * settings record's builder holds until it builds (and checks) the record, and what the command
 * line hands to that builder. Only the settings it was made for are taken.
 */
public final class SettingValues {
  private final List<Setting<?>> settings;
  private final Map<Setting<?>, Object> values = new IdentityHashMap<>();

  /** Values of {@code settings}, none set yet. */
  public SettingValues(List<? extends Setting<?>> settings) {
    this.settings = List.copyOf(settings);
  }

  /** The settings these are values of. */
  public List<Setting<?>> settings() {
    return Collections.unmodifiableList(settings);
  }

  /**
   * Sets {@code setting} to {@code value} (null: back to the default).
   *
   * @throws IllegalArgumentException when {@code setting} is not one of these
   */
  public <T> SettingValues set(Setting<T> setting, T value) {
    if (!contains(setting)) {
      throw new IllegalArgumentException(
          setting.option() + " is not one of " + names() + ": use the setting of that service");
    }
    if (value == null) {
      values.remove(setting);
    } else {
      values.put(setting, value);
    }
    return this;
  }

  /** Sets every value that {@code other} has set (each of its settings must be one of these). */
  public SettingValues setAll(SettingValues other) {
    for (Setting<?> s : other.settings) {
      if (other.values.containsKey(s)) {
        copy(s, other);
      }
    }
    return this;
  }

  private <T> void copy(Setting<T> s, SettingValues from) {
    set(s, from.get(s));
  }

  /** The value set, or the setting's default (null for a setting without one). */
  @SuppressWarnings("unchecked")
  public <T> T get(Setting<T> setting) {
    if (!contains(setting)) {
      throw new IllegalArgumentException(setting.option() + " is not one of " + names());
    }
    Object v = values.get(setting);
    return v != null ? (T) v : setting.defaultValue();
  }

  /** True when {@code setting} was set (not left to its default). */
  public boolean isSet(Setting<?> setting) {
    return values.containsKey(setting);
  }

  private boolean contains(Setting<?> setting) {
    for (Setting<?> s : settings) {
      if (s == setting) {
        return true;
      }
    }
    return false;
  }

  private List<String> names() {
    List<String> names = new ArrayList<>();
    for (Setting<?> s : settings) {
      names.add(s.option());
    }
    return names;
  }
}

package dev.ordinal.runtime;

import dev.ordinal.runtime.settings.Setting;
import dev.ordinal.runtime.settings.SettingsBuilder;
import java.util.List;

/**
 * A service's settings builder: its settings' values, among them where health and metrics are
 * served ({@link ManagementSettings#HOST} and the service's own {@link
 * ManagementSettings#portSetting(int)}).
 *
 * @param <B> the builder itself, which every setter returns
 */
public abstract class ServiceSettingsBuilder<B extends ServiceSettingsBuilder<B>>
    extends SettingsBuilder<B> {
  private final Setting<Integer> managementPort;

  /**
   * A builder of {@code settings}, none set yet; {@code managementPort} and {@link
   * ManagementSettings#HOST} must be among them.
   */
  protected ServiceSettingsBuilder(
      List<? extends Setting<?>> settings, Setting<Integer> managementPort) {
    super(settings);
    this.managementPort = managementPort;
  }

  /** Serves health and metrics on {@code m}'s host and port. */
  public B management(ManagementSettings m) {
    set(ManagementSettings.HOST, m.host());
    return set(managementPort, m.port());
  }

  /** The management host and port set, or their defaults. */
  protected ManagementSettings management() {
    return new ManagementSettings(values.get(ManagementSettings.HOST), values.get(managementPort));
  }
}

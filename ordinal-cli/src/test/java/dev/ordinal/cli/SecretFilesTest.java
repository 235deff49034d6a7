package dev.ordinal.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ordinal.messaging.ConfigurationException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** A password given as a file's name ({@code ORDINAL_DB_PASSWORD_FILE}), as container images do. */
class SecretFilesTest extends CommandTest {

  /**
   * An environment of {@code name=value} and {@code ORDINAL_DB_PASSWORD_FILE} naming a file in
   * {@code dir} that holds {@code password}.
   */
  private static Map<String, String> withPasswordFile(
      Path dir, String password, String name, String value) throws IOException {
    Path secret = Files.writeString(dir.resolve("db"), password);
    return Map.of(name, value, ServerSettings.ENV_DB_PASSWORD + "_FILE", secret.toString());
  }

  @Test
  void aPasswordFileGivesTheDatabasePasswordWithoutItsLineBreak(@TempDir Path dir)
      throws Exception {
    Map<String, String> env =
        withPasswordFile(
            dir, "s3cret pass\n", ServerSettings.ENV_DB_URL, "jdbc:postgresql://db:5432/app");

    ServerSettings servers = ServerSettings.from(env);

    assertThat(servers.dbPassword()).isEqualTo("s3cret pass");
    assertThat(servers.toString()).doesNotContain("s3cret");
  }

  @Test
  void theFileWinsOverThePasswordInTheConfigFile(@TempDir Path dir) throws Exception {
    Path config = Files.writeString(dir.resolve("ordinal.properties"), "db.password=from-config\n");
    Map<String, String> env =
        withPasswordFile(dir, "from-the-secret", Settings.ENV_CONFIG, config.toString());

    assertThat(Settings.environment(env))
        .containsEntry(ServerSettings.ENV_DB_PASSWORD, "from-the-secret");
  }

  @Test
  void bothThePasswordAndItsFileAreRefusedNamingBoth(@TempDir Path dir) throws Exception {
    Map<String, String> env = withPasswordFile(dir, "x", ServerSettings.ENV_DB_PASSWORD, "y");

    assertThatThrownBy(() -> Settings.environment(env))
        .isInstanceOf(ConfigurationException.class)
        .hasMessage(
            "Both ORDINAL_DB_PASSWORD and ORDINAL_DB_PASSWORD_FILE are set; set only one of them.");
  }

  @Test
  void anUnreadableFileIsOneSentenceNamingTheVariableAndTheFile(@TempDir Path dir) {
    Path missing = dir.resolve("absent");
    Map<String, String> env = Map.of("ORDINAL_RELAY_PASSWORD_FILE", missing.toString());

    assertThatThrownBy(() -> Settings.environment(env))
        .isInstanceOf(ConfigurationException.class)
        .hasMessage(
            "ORDINAL_RELAY_PASSWORD_FILE names "
                + missing
                + ", which cannot be read (NoSuchFileException).");
  }

  @Test
  void relaySetupSqlTakesTheRolesPasswordFromAFile(@TempDir Path dir) throws Exception {
    Path secret = Files.writeString(dir.resolve("relay"), "relay-pw\n");
    Map<String, String> env = new HashMap<>();
    env.put("ORDINAL_RELAY_PASSWORD_FILE", secret.toString());
    RelayCommand.SetupSql command = new RelayCommand.SetupSql();
    command.env = env;
    CommandLine cli = printingHere(Main.configured(new CommandLine(command), env));

    int status = cli.execute("--schema", "orders");

    assertThat(status).as(err.toString()).isZero();
    assertThat(out.toString()).contains("password 'relay-pw'");
  }
}

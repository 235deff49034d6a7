package dev.ordinal.lab.codegen;

import ch.qos.logback.classic.Level;
import dev.ordinal.lab.devstack.EmbeddedPostgresServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.stream.Stream;
import org.flywaydb.core.Flyway;
import org.jooq.codegen.GenerationTool;
import org.jooq.meta.jaxb.Configuration;
import org.jooq.meta.jaxb.Database;
import org.jooq.meta.jaxb.Generate;
import org.jooq.meta.jaxb.Generator;
import org.jooq.meta.jaxb.Jdbc;
import org.jooq.meta.jaxb.Target;
import org.slf4j.LoggerFactory;

/**
 * Generates a module's jOOQ classes from its Flyway migrations, run against a real PostgreSQL (the
 * embedded one) so every column keeps its exact PostgreSQL type. Run by exec-maven-plugin at
 * generate-sources:
 *
 * <pre>
 * JooqGenerator OUT_DIR PACKAGE MIGRATION_DIR=HISTORY_TABLE[,MIGRATION_DIR=HISTORY_TABLE ...]
 * </pre>
 *
 * Each migration directory is applied with its own Flyway history table, in order. Nothing is done
 * when the migrations, the package and the generator are unchanged since the last run.
 */
public final class JooqGenerator {
  static final String SCHEMA = "codegen";
  private static final String STAMP = ".ordinal-codegen.sha256";

  private JooqGenerator() {}

  public static void main(String[] args) throws Exception {
    if (args.length < 3) {
      System.err.println(
          "usage: JooqGenerator OUT_DIR PACKAGE MIGRATION_DIR=HISTORY_TABLE [MIGRATION_DIR=HISTORY_TABLE ...]");
      System.exit(2);
    }
    ((ch.qos.logback.classic.Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME))
        .setLevel(Level.WARN);
    Path out = Path.of(args[0]);
    String pkg = args[1];
    List<String[]> migrations = new ArrayList<>();
    for (int i = 2; i < args.length; i++) {
      for (String spec : args[i].split(",")) {
        String[] parts = spec.trim().split("=", 2);
        if (parts.length != 2) {
          throw new IllegalArgumentException(spec + " must be MIGRATION_DIR=HISTORY_TABLE");
        }
        migrations.add(parts);
      }
    }
    String stamp = stamp(pkg, migrations);
    Path stampFile = out.resolve(STAMP);
    if (Files.exists(stampFile) && Files.readString(stampFile).equals(stamp)) {
      System.out.println("jOOQ classes in " + out + " are up to date");
      return;
    }
    Path dataDir = Files.createTempDirectory("ordinal-codegen-pg");
    try (EmbeddedPostgresServer pg = EmbeddedPostgresServer.start(dataDir.resolve("pg"), false)) {
      for (String[] m : migrations) {
        Flyway.configure()
            .dataSource(pg.jdbcUrl(), EmbeddedPostgresServer.USER, EmbeddedPostgresServer.PASSWORD)
            .schemas(SCHEMA)
            .defaultSchema(SCHEMA)
            .createSchemas(true)
            // several migration sets share the schema: start each one's history below V1
            .baselineOnMigrate(true)
            .baselineVersion("0")
            .table(m[1])
            .locations("filesystem:" + m[0])
            .load()
            .migrate();
      }
      GenerationTool.generate(
          new Configuration()
              .withLogging(org.jooq.meta.jaxb.Logging.WARN)
              .withJdbc(
                  new Jdbc()
                      .withDriver("org.postgresql.Driver")
                      .withUrl(pg.jdbcUrl())
                      .withUser(EmbeddedPostgresServer.USER)
                      .withPassword(EmbeddedPostgresServer.PASSWORD))
              .withGenerator(
                  new Generator()
                      .withDatabase(
                          new Database()
                              .withName("org.jooq.meta.postgres.PostgresDatabase")
                              .withInputSchema(SCHEMA)
                              .withOutputSchemaToDefault(true)
                              .withExcludes("flyway_.*"))
                      .withGenerate(
                          new Generate()
                              .withGeneratedAnnotation(false)
                              .withJavaTimeTypes(true)
                              .withPojos(false)
                              .withDaos(false))
                      .withTarget(
                          new Target().withPackageName(pkg).withDirectory(out.toString()))));
    }
    Files.writeString(stampFile, stamp);
    System.out.println("jOOQ classes generated in " + out);
  }

  private static String stamp(String pkg, List<String[]> migrations) throws IOException {
    try {
      MessageDigest sha = MessageDigest.getInstance("SHA-256");
      sha.update(pkg.getBytes(StandardCharsets.UTF_8));
      sha.update(org.jooq.Constants.VERSION.getBytes(StandardCharsets.UTF_8));
      for (String[] m : migrations) {
        sha.update(m[1].getBytes(StandardCharsets.UTF_8));
        try (Stream<Path> files = Files.walk(Path.of(m[0]))) {
          for (Path f : files.filter(Files::isRegularFile).sorted().toList()) {
            sha.update(f.getFileName().toString().getBytes(StandardCharsets.UTF_8));
            sha.update(Files.readAllBytes(f));
          }
        }
      }
      return HexFormat.of().formatHex(sha.digest());
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    } catch (UncheckedIOException e) {
      throw e.getCause();
    }
  }
}

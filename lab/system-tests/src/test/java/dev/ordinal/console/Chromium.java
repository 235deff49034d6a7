package dev.ordinal.console;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.openqa.selenium.By;
import org.openqa.selenium.Dimension;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;

/** The console's page in Debian's headless Chromium, for the console's browser tests. */
final class Chromium {
  private static final Duration WITHIN = Duration.ofSeconds(60);

  private Chromium() {}

  /** How many snapshots the page has shown. */
  static int refreshes(WebDriver browser) {
    String n = browser.findElement(By.tagName("body")).getDomAttribute("data-refreshes");
    return n == null ? 0 : Integer.parseInt(n);
  }

  /**
   * Every figure of the page ({@code data-figure} name to text), read in one script: the page
   * redraws its tables on each refresh, so elements found one call earlier may be gone.
   */
  @SuppressWarnings("unchecked")
  static Map<String, String> figures(WebDriver browser) {
    return (Map<String, String>)
        ((JavascriptExecutor) browser)
            .executeScript(
                "return Object.fromEntries([...document.querySelectorAll('[data-figure]')]"
                    + ".map(e => [e.dataset.figure, e.textContent]));");
  }

  /** Debian's Chromium, headless, through its chromedriver; no Selenium Manager download. */
  static WebDriver start(Path profile) {
    ChromeOptions options = new ChromeOptions();
    options.setBinary("/usr/bin/chromium");
    options.addArguments(
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--user-data-dir=" + profile.resolve("chromium"));
    ChromeDriverService service =
        new ChromeDriverService.Builder()
            .usingDriverExecutable(new File("/usr/bin/chromedriver"))
            .usingAnyFreePort()
            .build();
    WebDriver driver = new ChromeDriver(service, options);
    driver.manage().window().setSize(new Dimension(1400, 1700));
    return driver;
  }

  /**
   * Saves the page as docs/console/{@code name}, which docs/CONSOLE.md shows, once it has refreshed
   * three more times (so that its plots have points to join).
   */
  static void screenshot(WebDriver browser, String name) throws IOException {
    int refreshes = refreshes(browser);
    await().atMost(WITHIN).until(() -> refreshes(browser) >= refreshes + 3);
    Path dir = Path.of("").toAbsolutePath();
    while (dir != null && !Files.isDirectory(dir.resolve("docs"))) {
      dir = dir.getParent();
    }
    assertThat(dir).as("docs/ above the working directory").isNotNull();
    Path target = dir.resolve("docs/console").resolve(name);
    Files.createDirectories(target.getParent());
    byte[] png = ((org.openqa.selenium.TakesScreenshot) browser).getScreenshotAs(OutputType.BYTES);
    Files.write(target, png);
    System.out.println("screenshot: " + target + " (" + png.length + " bytes)");
  }
}

package dev.ordinal.lab.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class HostStealTest {
  @Test
  void theTotalIsUserToStealAndGuestTimeIsLeftOut() {
    // user nice system idle iowait irq softirq steal guest guest_nice
    assertThat(HostSteal.parse("cpu  1036940 7490 288771 620568 10240 0 63213 22811 500 7"))
        .contains(new HostSteal(22_811, 2_050_033));
  }

  @Test
  void theShareIsOfTheTicksBetweenTwoReadings() {
    HostSteal before = new HostSteal(1_000, 100_000);
    HostSteal after = new HostSteal(1_150, 101_000);
    assertThat(after.percentSince(before)).isEqualTo(15.0);
    assertThat(HostSteal.cell(Optional.of(before), Optional.of(after))).isEqualTo("15.0");
    assertThat(after.percentSince(after)).isZero();
  }

  @Test
  void aLineOfAnotherShapeOrAMissingReadingIsNotAvailable() {
    assertThat(HostSteal.parse("cpu0 1 2 3 4 5 6 7 8 0 0")).isEmpty();
    assertThat(HostSteal.parse("cpu 1 2 3")).isEmpty();
    assertThat(HostSteal.parse("cpu 1 2 x 4 5 6 7 8")).isEmpty();
    assertThat(HostSteal.cell(Optional.empty(), Optional.of(new HostSteal(1, 2)))).isEqualTo("n/a");
  }

  @Test
  void thisMachineHasTheCountersWhereProcStatExists() {
    if (Files.isReadable(Path.of("/proc/stat"))) {
      HostSteal now = HostSteal.now().orElseThrow();
      assertThat(now.total()).isGreaterThan(0);
      assertThat(now.steal()).isBetween(0L, now.total());
    } else {
      assertThat(HostSteal.now()).isEmpty();
    }
  }
}

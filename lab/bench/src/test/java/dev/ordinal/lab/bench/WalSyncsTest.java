package dev.ordinal.lab.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Optional;
import org.junit.jupiter.api.Test;

class WalSyncsTest {
  @Test
  void theMeanIsTheTimeBetweenTwoReadingsOverTheSyncsBetweenThem() {
    Optional<WalSyncs> before = Optional.of(new WalSyncs(1_000, 400.0, true));
    Optional<WalSyncs> after = Optional.of(new WalSyncs(1_400, 568.0, true));
    assertThat(WalSyncs.meanCell(before, after)).isEqualTo("0.42");
  }

  @Test
  void untimedMissingOrNoSyncsReadNotAvailable() {
    Optional<WalSyncs> timed = Optional.of(new WalSyncs(10, 5.0, true));
    assertThat(WalSyncs.meanCell(timed, timed))
        .as("no sync between them (fsync off)")
        .isEqualTo("n/a");
    assertThat(WalSyncs.meanCell(timed, Optional.of(new WalSyncs(20, 0.0, false))))
        .as("track_wal_io_timing off")
        .isEqualTo("n/a");
    assertThat(WalSyncs.meanCell(Optional.empty(), timed)).isEqualTo("n/a");
  }
}

package dev.ordinal.billing;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@link GapAudit#numbering} on numbers alone: gaps, duplicates, the highest number and the
 * counter's numbers held by no invoice. The audit on real rows is {@code GapAuditIT}'s.
 */
class GapAuditTest {
  @Test
  void oneToNWithTheCounterAtNPlusOneIsClean() {
    GapAudit.Numbering n = GapAudit.numbering(List.of(1L, 2L, 3L), 4L);

    assertThat(n.highest()).isEqualTo(3);
    assertThat(n.gaps()).isEmpty();
    assertThat(n.duplicates()).isEmpty();
  }

  @Test
  void missingNumbersAndNumbersTheCounterHandedOutAreGaps() {
    GapAudit.Numbering n = GapAudit.numbering(List.of(1L, 3L, 4L, 5L), 8L);

    assertThat(n.highest()).isEqualTo(5);
    assertThat(n.gaps()).containsExactly(new long[] {2, 2}, new long[] {6, 7});
    assertThat(n.duplicates()).isEmpty();
  }

  @Test
  void aMissingFirstNumberIsAGap() {
    GapAudit.Numbering n = GapAudit.numbering(List.of(3L), null);

    assertThat(n.highest()).isEqualTo(3);
    assertThat(n.gaps()).containsExactly(new long[] {1, 2});
  }

  @Test
  void aNumberHeldMoreThanOnceIsOneDuplicate() {
    GapAudit.Numbering n = GapAudit.numbering(List.of(1L, 2L, 2L, 2L, 3L, 3L), 4L);

    assertThat(n.highest()).isEqualTo(3);
    assertThat(n.gaps()).isEmpty();
    assertThat(n.duplicates()).containsExactly(2L, 3L);
  }

  @Test
  void noNumbersAndNoCounterIsCleanAtZero() {
    GapAudit.Numbering n = GapAudit.numbering(List.of(), null);

    assertThat(n.highest()).isZero();
    assertThat(n.gaps()).isEmpty();
    assertThat(n.duplicates()).isEmpty();
  }

  @Test
  void aCounterBelowTheHighestNumberAddsNoGap() {
    GapAudit.Numbering n = GapAudit.numbering(List.of(1L, 2L), 2L);

    assertThat(n.gaps()).isEmpty();
  }
}

package dev.ordinal.messaging;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.SQLException;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class PreflightTest {
  @ParameterizedTest
  @CsvSource({
    "08006, true", // connection failure
    "57P01, true", // admin shutdown
    "57P03, true", // cannot connect now (starting up)
    "53300, true", // too many connections
    "25006, true", // read-only transaction: a standby, until pgjdbc finds the primary
    "42501, false", // insufficient privilege: no wait mends it
    "23505, false" // unique violation
  })
  void aServerThatCannotTakeTheSessionNowIsToBeWaitedFor(String state, boolean unavailable) {
    assertThat(Preflight.unavailable(new SQLException("x", state))).isEqualTo(unavailable);
  }
}

package dev.ordinal.console;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ServiceMetricsTest {
  @Test
  void aRelaysRoleAndP99AndAnInboxsSkippedRedeliveriesAreReadFromPrometheusText() {
    String relay =
        String.join(
            "\n",
            "# HELP ordinal_relay_leader 1 while this instance streams from the slot",
            "ordinal_relay_leader{relay_instance=\"a\",slot=\"ordinal_orders\"} 1.0",
            "ordinal_relay_leader{relay_instance=\"a\",slot=\"ordinal_billing\"} 0.0",
            "ordinal_relay_lag_seconds_bucket{le=\"0.05\",relay_instance=\"a\",slot=\"x\"} 90.0",
            "ordinal_relay_lag_seconds_bucket{le=\"0.1\",relay_instance=\"a\",slot=\"x\"} 99.0",
            "ordinal_relay_lag_seconds_bucket{le=\"0.5\",relay_instance=\"a\",slot=\"x\"} 100.0",
            "ordinal_relay_lag_seconds_bucket{le=\"+Inf\",relay_instance=\"a\",slot=\"x\"} 100.0");
    ServiceMetrics r = ServiceMetrics.of(relay);
    assertThat(r.role()).isEqualTo("leader of ordinal_orders, standby for ordinal_billing");
    assertThat(r.ackP99Seconds()).isEqualTo(0.1);
    assertThat(r.duplicatesSkipped()).isNull();

    ServiceMetrics billing =
        ServiceMetrics.of(
            "ordinal_inbox_messages_total{consumer=\"billing\",outcome=\"applied\"} 7.0\n"
                + "ordinal_inbox_messages_total{consumer=\"billing\",outcome=\"duplicate\"} 2.0\n"
                + "ordinal_inbox_messages_total{consumer=\"lanes\",outcome=\"duplicate\"} 1.0\n");
    assertThat(billing.duplicatesSkipped()).isEqualTo(3);
    assertThat(billing.role()).isNull();
    assertThat(billing.ackP99Seconds()).isNull();
  }
}

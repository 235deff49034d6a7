/**
 * Consumer lag you can trust: per group, topic and partition the committed offset, the log-end
 * offset, the lag in records (the same figures as Kafka's {@code kafka-consumer-groups --describe})
 * and the lag in time, read from the timestamp of the very record the group will read next; a
 * status per partition and group over a sliding window of samples; the same figures as Micrometer
 * gauges, beside the replication-slot lag of the relay.
 *
 * <p>{@link dev.ordinal.ops.lag.LagReader} takes a {@link dev.ordinal.ops.lag.LagSnapshot}; {@link
 * dev.ordinal.ops.lag.LagStatusTracker} turns snapshots into a {@link
 * dev.ordinal.ops.lag.LagReport} with statuses; {@link dev.ordinal.ops.lag.LagSampler} does both on
 * a schedule and feeds {@link dev.ordinal.ops.lag.LagMetrics}.
 */
package dev.ordinal.ops.lag;

package dev.ordinal.messaging.inbox.internal;

import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * The first record of a partition that must be applied again, why, and whether the cause is
 * permanent (retrying the same record cannot help).
 */
record Failure(ConsumerRecord<String, String> record, Throwable cause, boolean permanent) {
  long offset() {
    return record.offset();
  }
}

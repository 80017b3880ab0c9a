package io.aloft.autoscaler.balance;

import java.util.Objects;

/**
 * One partition to move from one broker to another, and why. A move copies no data: the partition's
 * single owner changes (an Admin {@code alterPartitionReassignments} with a one-broker target).
 * Immutable.
 *
 * @param topic the topic
 * @param partition the partition index
 * @param fromBroker the broker serving it now
 * @param toBroker the broker that will serve it
 * @param bytesInPerSec the partition's estimated ingress, which the move shifts between the brokers
 * @param bytesOutPerSec its estimated egress
 * @param reason the goal the move serves, for logs and the dry-run plan (e.g. "network-in band: broker 2 at +38%")
 */
public record Move(String topic, int partition, int fromBroker, int toBroker, double bytesInPerSec,
        double bytesOutPerSec, String reason) {

    public Move {
        Objects.requireNonNull(topic, "topic");
        Objects.requireNonNull(reason, "reason");
        if (fromBroker == toBroker) {
            throw new IllegalArgumentException(topic + "-" + partition + " moved onto its own broker " + toBroker);
        }
    }

    /** {@code topic-partition}. */
    public String name() {
        return topic + "-" + partition;
    }
}

package io.aloft.broker;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;

/**
 * What the members of a consumer group test have consumed and own, shared between the members'
 * threads and the test thread; guarded by its monitor, which every change notifies.
 */
final class GroupProgress {
    private static final long WAIT_MS = 60_000;

    final int partitions;
    final List<String> values = new ArrayList<>();
    final Set<String> positions = new HashSet<>();
    final Map<String, Set<TopicPartition>> assignments = new HashMap<>();
    final Map<String, Integer> consumedBy = new HashMap<>();
    int duplicatePositions;

    GroupProgress(int partitions) {
        this.partitions = partitions;
    }

    synchronized void consumed(String member, ConsumerRecord<String, String> r) {
        values.add(r.value());
        if (!positions.add(r.topic() + "-" + r.partition() + "@" + r.offset())) {
            duplicatePositions++;
        }
        consumedBy.merge(member, 1, Integer::sum);
        notifyAll();
    }

    synchronized void owns(String member, Collection<TopicPartition> partitions) {
        Set<TopicPartition> owned = Set.copyOf(partitions);
        if (!owned.equals(assignments.get(member))) {
            assignments.put(member, owned);
            notifyAll();
        }
    }

    synchronized int distinct() {
        return positions.size();
    }

    synchronized Set<TopicPartition> of(String member) {
        return assignments.getOrDefault(member, Set.of());
    }

    /** Whether exactly these members own partitions, together each of the topic's partitions once. */
    synchronized boolean assignedExactlyTo(Set<String> members) {
        Set<TopicPartition> covered = new HashSet<>();
        int total = 0;
        for (Map.Entry<String, Set<TopicPartition>> e : assignments.entrySet()) {
            if (!e.getValue().isEmpty() && !members.contains(e.getKey())) {
                return false;
            }
            covered.addAll(e.getValue());
            total += e.getValue().size();
        }
        for (String m : members) {
            if (assignments.getOrDefault(m, Set.of()).isEmpty()) {
                return false;
            }
        }
        return covered.size() == partitions && total == partitions;
    }

    /** Waits (on this monitor, woken by every change) until {@code condition} holds. */
    synchronized void await(String what, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(WAIT_MS);
        while (!condition.getAsBoolean()) {
            long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
            if (left <= 0) {
                throw new AssertionError("gave up waiting for " + what + "; assignments " + assignments
                        + ", consumed " + positions.size());
            }
            wait(Math.min(left, 200));
        }
    }
}

/**
 * One member on its own thread: poll, process (record), commit; commits also on revocation, so
 * a record processed but not committed when partitions move is not read again by their next owner.
 */

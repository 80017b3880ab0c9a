package io.aloft.broker;

import java.time.Duration;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ListOffsetsResult.ListOffsetsResultInfo;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.CommitFailedException;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.RebalanceInProgressException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * A consumer group of real {@link KafkaConsumer} members (classic protocol, no auto-commit)
 * reading a topic a {@link SequenceProducer} writes, that counts a record as <em>consumed</em> only
 * once a commit covering it succeeded: each member polls, processes the batch (keeps it pending),
 * then {@code commitSync}s the offsets after it, and commits on revocation too. A commit the
 * coordinator refused (CommitFailedException, RebalanceInProgressException) leaves its records
 * pending: a later commit of the same member covers them, or the partition is revoked or lost
 * and its next owner reads them again from the committed offset, as Kafka specifies. A commit
 * whose outcome is unknown (TimeoutException) is resolved by reading {@code committed()}: an
 * offset at or past the one sent means it was applied. So "every acknowledged record consumed
 * exactly once, in order" holds exactly when the group's committed offsets never skip ahead or go
 * back, which is what a coordinator failover must preserve.
 *
 * <p>Threads: each member's thread owns its KafkaConsumer and its pending records (the rebalance
 * callbacks run on it, inside poll and close). The consumed values per partition are guarded by
 * this object's monitor: member threads append, the test thread reads. Failures go to a
 * concurrent queue; the stop flag is volatile. One test thread calls the other methods.
 *
 * <p>Residual: an unknown outcome resolved as applied because another member committed at or past
 * the offset would count records twice; that needs this member's session to have expired while its
 * commit was retried (the coordinator unreachable), and another member to commit meanwhile.
 */
final class CommittedGroupConsumer {
    private static final Duration POLL = Duration.ofMillis(200);
    private static final Duration COMMIT_TIMEOUT = Duration.ofSeconds(30);
    /** How long a member tries to learn the outcome of a commit that timed out. */
    private static final long RESOLVE_MS = 120_000;
    /** Problems listed in a failure message at most. */
    private static final int MAX_PROBLEMS = 30;

    private final String bootstrap;
    private final String group;
    private final String topic;
    private final int partitions;
    /** Per partition, the values consumed (committed), in the order their commits succeeded; guarded by this. */
    private final List<List<Integer>> consumed = new ArrayList<>();
    private final List<Member> members = new ArrayList<>();
    private final Queue<Throwable> failures = new ConcurrentLinkedQueue<>();
    private volatile boolean stopping;
    /** Commit outcomes (all members): succeeded, refused, timed out (then resolved by committed()). */
    private final AtomicInteger commits = new AtomicInteger();
    private final AtomicInteger refused = new AtomicInteger();
    private final AtomicInteger timedOut = new AtomicInteger();
    /** Partitions revoked or lost with records pending (read again by their next owner). */
    private final AtomicInteger dropped = new AtomicInteger();

    /** A group of {@code memberCount} members, not started; {@code bootstrap} should list every broker. */
    CommittedGroupConsumer(String bootstrap, String group, String topic, int partitions, int memberCount) {
        this.bootstrap = bootstrap;
        this.group = group;
        this.topic = topic;
        this.partitions = partitions;
        for (int p = 0; p < partitions; p++) {
            consumed.add(new ArrayList<>());
        }
        for (int i = 1; i <= memberCount; i++) {
            members.add(new Member(group + "-member-" + i));
        }
    }

    void start() {
        for (Member m : members) {
            m.thread.start();
        }
    }

    /** Waits (≤ 120 s) until the group consumed a record, any; fails on a member's failure. */
    void awaitConsumedAny() throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        while (consumedTotal() == 0) {
            rethrow("waiting for the group's first commit");
            if (System.nanoTime() > deadline) {
                throw new AssertionError("group " + group + " consumed (committed) no record of " + topic
                        + " within 120 s");
            }
            TimeUnit.MILLISECONDS.sleep(50);
        }
    }

    /** The broker coordinating the group now, as DescribeGroups (through any broker) names it. */
    int coordinator() throws Exception {
        try (Admin admin = admin()) {
            return admin.describeConsumerGroups(List.of(group)).describedGroups().get(group).get(60, TimeUnit.SECONDS)
                    .coordinator().id();
        }
    }

    private Admin admin() {
        return Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 30_000));
    }

    /**
     * Waits until the group's committed offset of each partition reaches the partition's end
     * offset (asked through an Admin on every broker), with nothing more produced; fails after
     * {@code timeout} naming the partitions behind, or at once on a member's failure.
     */
    void awaitCommittedToEnd(Duration timeout, String context) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
        for (int p = 0; p < partitions; p++) {
            latest.put(new TopicPartition(topic, p), OffsetSpec.latest());
        }
        try (Admin admin = admin()) {
            while (true) {
                rethrow(context);
                String behind;
                try {
                    Map<TopicPartition, ListOffsetsResultInfo> ends = admin.listOffsets(latest).all()
                            .get(30, TimeUnit.SECONDS);
                    Map<TopicPartition, OffsetAndMetadata> committed = admin.listConsumerGroupOffsets(group)
                            .partitionsToOffsetAndMetadata().get(30, TimeUnit.SECONDS);
                    behind = behind(ends, committed);
                    if (behind.isEmpty()) {
                        return;
                    }
                } catch (ExecutionException | java.util.concurrent.TimeoutException e) {
                    behind = "(asking failed: " + (e.getCause() != null ? e.getCause() : e) + ")";
                }
                if (System.nanoTime() > deadline) {
                    throw new AssertionError("group " + group + "'s committed offsets did not reach the end offsets "
                            + "within " + timeout.toSeconds() + " s; " + context + ": " + behind + "; consumed "
                            + consumedTotal() + " records");
                }
                TimeUnit.MILLISECONDS.sleep(200);
            }
        }
    }

    private String behind(Map<TopicPartition, ListOffsetsResultInfo> ends,
            Map<TopicPartition, OffsetAndMetadata> committed) {
        List<String> behind = new ArrayList<>();
        for (int p = 0; p < partitions; p++) {
            TopicPartition tp = new TopicPartition(topic, p);
            OffsetAndMetadata at = committed.get(tp);
            long end = ends.get(tp).offset();
            if (at == null || at.offset() < end) {
                behind.add(tp + " committed " + (at == null ? "nothing" : at.offset()) + " of end " + end);
            }
        }
        return String.join(", ", behind);
    }

    /** Stops every member (each commits what it processed, then leaves the group); the counts are final then. */
    void stop() throws InterruptedException {
        stopping = true;
        for (Member m : members) {
            m.thread.join(TimeUnit.SECONDS.toMillis(60));
            if (m.thread.isAlive()) {
                failures.add(new AssertionError(m.name + " did not stop within 60 s"));
            }
        }
    }

    void rethrow(String context) {
        Throwable first = failures.peek();
        if (first != null) {
            throw new AssertionError("the consumer group failed (" + failures.size() + " failures); " + context,
                    first);
        }
    }

    /** What the members' commits met, for the test's output. */
    String summary() {
        return "consumed=" + consumedTotal() + " commits=" + commits + " refused=" + refused + " timed_out="
                + timedOut + " pending_dropped=" + dropped;
    }

    /** The values of {@code partition} consumed so far, in the order they were. */
    synchronized List<Integer> consumed(int partition) {
        return List.copyOf(consumed.get(partition));
    }

    synchronized int consumedTotal() {
        return consumed.stream().mapToInt(List::size).sum();
    }

    /**
     * Once stopped: the group consumed values 0..acknowledged[p]-1 of each partition p exactly once,
     * in order; otherwise fails listing, per partition, the values (runs of them) missing, consumed
     * twice, consumed out of order, or consumed but never acknowledged.
     */
    synchronized void assertConsumedOnceInOrder(int[] acknowledged) {
        List<String> problems = new ArrayList<>();
        for (int p = 0; p < partitions; p++) {
            Problems found = new Problems(topic + "-" + p, problems);
            BitSet seen = new BitSet(acknowledged[p]);
            int previous = -1;
            for (int value : consumed.get(p)) {
                if (value >= acknowledged[p]) {
                    found.add(value, "consumed but never acknowledged", "acknowledged " + acknowledged[p]);
                } else if (seen.get(value)) {
                    found.add(value, "consumed twice", "the second time after value " + previous);
                } else if (value < previous) {
                    found.add(value, "consumed out of order", "after value " + previous);
                }
                seen.set(value);
                previous = value;
            }
            for (int v = seen.nextClearBit(0); v < acknowledged[p]; v = seen.nextClearBit(v + 1)) {
                found.add(v, "missing", "acknowledged, never consumed");
            }
            found.flush();
        }
        if (!problems.isEmpty()) {
            throw new AssertionError("group " + group + " did not consume every acknowledged record of " + topic
                    + " exactly once, in order (consumed " + consumedTotal() + "): " + problems.size()
                    + " problems" + (problems.size() > MAX_PROBLEMS ? ", the first " + MAX_PROBLEMS : "") + ":\n  "
                    + String.join("\n  ", problems.subList(0, Math.min(MAX_PROBLEMS, problems.size()))));
        }
    }

    /** Collects one partition's problems into lines, a run of consecutive values with the same problem in one. */
    private static final class Problems {
        private final String partition;
        private final List<String> into;
        private String kind;
        private String detail;
        private int first;
        private int last;

        Problems(String partition, List<String> into) {
            this.partition = partition;
            this.into = into;
        }

        /** @param detail of the run's first value (a run of values consumed twice comes after one value) */
        void add(int value, String kind, String detail) {
            if (kind.equals(this.kind) && value == last + 1) {
                last = value;
                return;
            }
            flush();
            this.kind = kind;
            this.detail = detail;
            first = value;
            last = value;
        }

        void flush() {
            if (kind != null) {
                into.add(partition + (first == last ? " value " + first : " values " + first + ".." + last) + " "
                        + kind + " (" + detail + ")");
                kind = null;
            }
        }
    }

    /** Moves a member's pending records below the committed offsets to the consumed ones. */
    private synchronized void committed(Map<TopicPartition, List<Processed>> pending,
            Map<TopicPartition, OffsetAndMetadata> offsets) {
        for (Map.Entry<TopicPartition, OffsetAndMetadata> e : offsets.entrySet()) {
            List<Processed> records = pending.get(e.getKey());
            if (records == null) {
                continue;
            }
            List<Integer> into = consumed.get(e.getKey().partition());
            int n = 0;
            while (n < records.size() && records.get(n).offset < e.getValue().offset()) {
                into.add(records.get(n).value);
                n++;
            }
            records.subList(0, n).clear();
        }
    }

    /** A record a member processed: its offset and its {@link SequenceProducer#value}. */
    private record Processed(long offset, int value) {
    }

    /** One member: its thread, and what only that thread touches. */
    private final class Member implements ConsumerRebalanceListener {
        final String name;
        final Thread thread;
        /** Confined to {@link #thread}. */
        private KafkaConsumer<String, String> consumer;
        /** Per partition, records processed since the last commit known to cover them; confined to {@link #thread}. */
        private final Map<TopicPartition, List<Processed>> pending = new HashMap<>();

        Member(String name) {
            this.name = name;
            this.thread = new Thread(this::run, name);
            thread.setDaemon(true);
        }

        private void run() {
            Properties cp = new Properties();
            cp.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
            cp.put(ConsumerConfig.GROUP_ID_CONFIG, group);
            cp.put(ConsumerConfig.CLIENT_ID_CONFIG, name);
            cp.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
            cp.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
            // Small batches: many commits, so failovers land between a poll and its commit too.
            cp.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "200");
            try (KafkaConsumer<String, String> c = new KafkaConsumer<>(cp, new StringDeserializer(),
                    new StringDeserializer())) {
                consumer = c;
                c.subscribe(List.of(topic), this);
                while (!stopping) {
                    for (ConsumerRecord<String, String> r : c.poll(POLL)) {
                        pending.computeIfAbsent(new TopicPartition(r.topic(), r.partition()), tp -> new ArrayList<>())
                                .add(new Processed(r.offset(), SequenceProducer.value(r)));
                    }
                    commitPending(pending.keySet());
                }
                commitPending(pending.keySet()); // leaving; close() then revokes (committing again if this failed)
            } catch (Throwable t) {
                failures.add(new AssertionError(name + " failed", t));
            }
        }

        @Override
        public void onPartitionsRevoked(Collection<TopicPartition> revoked) {
            commitPending(revoked);
            drop(revoked); // what is still pending was not committed: the partitions' next owner reads it again
        }

        private void drop(Collection<TopicPartition> tps) {
            for (TopicPartition tp : tps) {
                List<Processed> records = pending.remove(tp);
                if (records != null && !records.isEmpty()) {
                    dropped.incrementAndGet();
                }
            }
        }

        @Override
        public void onPartitionsLost(Collection<TopicPartition> lost) {
            drop(lost); // no longer a member of that generation: nothing to commit
        }

        @Override
        public void onPartitionsAssigned(Collection<TopicPartition> assigned) {
        }

        /** Commits the offsets after the pending records of {@code tps}; counts them if it succeeded. */
        private void commitPending(Collection<TopicPartition> tps) {
            Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
            for (TopicPartition tp : tps) {
                List<Processed> records = pending.get(tp);
                if (records != null && !records.isEmpty()) {
                    offsets.put(tp, new OffsetAndMetadata(records.get(records.size() - 1).offset + 1));
                }
            }
            if (offsets.isEmpty()) {
                return;
            }
            try {
                consumer.commitSync(offsets, COMMIT_TIMEOUT);
                commits.incrementAndGet();
                committed(pending, offsets);
            } catch (CommitFailedException | RebalanceInProgressException e) {
                refused.incrementAndGet();
                // Refused: not committed. The records stay pending until a commit covers them, or the
                // partition is revoked or lost (then its next owner reads them again).
            } catch (TimeoutException e) {
                timedOut.incrementAndGet();
                resolve(offsets);
            }
        }

        /** After a commit timed out: counts what the group's committed offsets show it applied. */
        private void resolve(Map<TopicPartition, OffsetAndMetadata> offsets) {
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(RESOLVE_MS);
            while (true) {
                try {
                    Map<TopicPartition, OffsetAndMetadata> now = consumer.committed(offsets.keySet(), COMMIT_TIMEOUT);
                    Map<TopicPartition, OffsetAndMetadata> applied = new HashMap<>();
                    offsets.forEach((tp, sent) -> {
                        OffsetAndMetadata at = now.get(tp);
                        if (at != null && at.offset() >= sent.offset()) {
                            applied.put(tp, sent);
                        }
                    });
                    committed(pending, applied);
                    return;
                } catch (TimeoutException e) {
                    if (System.nanoTime() > deadline) {
                        throw new AssertionError(name + ": a commit of " + offsets + " timed out, and its outcome "
                                + "(committed()) stayed unknown for " + RESOLVE_MS / 1000 + " s", e);
                    }
                }
            }
        }
    }
}

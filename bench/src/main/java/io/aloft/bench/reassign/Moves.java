package io.aloft.bench.reassign;

import io.aloft.bench.cluster.ServedProbe;
import io.aloft.bench.cluster.Stats;
import io.aloft.servers.NodeCluster;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.ToDoubleFunction;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewPartitionReassignment;
import org.apache.kafka.common.TopicPartition;

/**
 * Repeated moves of one partition, round-robin over the brokers (each to the broker after its
 * current one), each timed from just before the AlterPartitionReassignments call until the new
 * broker acknowledged a probe produce ({@link ServedProbe}); a pause between moves lets the last one
 * settle (Kafka deletes the old replica's files; Aloft's old broker finishes its upload).
 *
 * <p>Not thread-safe: the benchmark's main thread uses it.
 */
final class Moves {
    static final long PAUSE_MS = 1000;

    /** One move: times in seconds from the call. */
    record Move(int from, int to, double callSeconds, double metadataSeconds, double ackSeconds) {
    }

    /** A partition's moves, and how many missed their deadline (not in {@code moves}). */
    record Result(List<Move> moves, int timedOut) {
        double percentile(double p) {
            return Stats.percentile(moves.stream().mapToDouble(Move::ackSeconds).toArray(), p);
        }

        double max() {
            return Stats.percentile(moves.stream().mapToDouble(Move::ackSeconds).toArray(), 100);
        }

        double median(ToDoubleFunction<Move> f) {
            return Stats.percentile(moves.stream().mapToDouble(f).toArray(), 50);
        }
    }

    private Moves() {
    }

    /**
     * Moves partition 0 of {@code topic} {@code count} times; a move that misses {@code perMoveTimeoutMs}
     * ends the series (the next would start while that one still runs).
     */
    static Result run(Admin admin, NodeCluster cluster, String topic, int count, long perMoveTimeoutMs,
            String label) throws Exception {
        List<Integer> brokers = cluster.brokerIds();
        TopicPartition tp = new TopicPartition(topic, 0);
        List<Move> moves = new ArrayList<>();
        int timedOut = 0;
        for (int i = 0; i < count; i++) {
            int from = ServedProbe.leaders(admin, topic).get(0);
            int to = brokers.get((brokers.indexOf(from) + 1) % brokers.size());
            try (ServedProbe probe = ServedProbe.forBroker(admin, cluster.bootstrap(to), topic)) {
                Move m = move(admin, probe, tp, from, to, perMoveTimeoutMs);
                if (m == null) {
                    timedOut++;
                    ReassignBenchmark.progress("%s: move %d (%d -> %d) not served within %d s; ending this series",
                            label, i + 1, from, to, perMoveTimeoutMs / 1000);
                    break;
                }
                moves.add(m);
                ReassignBenchmark.progress("%s: move %d/%d %d -> %d: %.3f s (call returned %.3f s, metadata %.3f s)",
                        label, i + 1, count, from, to, m.ackSeconds(), m.callSeconds(), m.metadataSeconds());
            }
            ReassignBenchmark.pause(PAUSE_MS);
        }
        return new Result(moves, timedOut);
    }

    /** One move, timed; null if it was not served within the timeout. */
    private static Move move(Admin admin, ServedProbe probe, TopicPartition tp, int from, int to,
            long perMoveTimeoutMs) throws Exception {
        long start = System.nanoTime();
        long deadline = start + TimeUnit.MILLISECONDS.toNanos(perMoveTimeoutMs);
        admin.alterPartitionReassignments(Map.of(tp, Optional.of(new NewPartitionReassignment(List.of(to)))))
                .all().get(perMoveTimeoutMs, TimeUnit.MILLISECONDS);
        double call = (System.nanoTime() - start) / 1e9;
        ServedProbe.Served served = probe.awaitOn(tp.topic(), tp.partition(), to, start, deadline);
        if (!served.complete()) {
            return null;
        }
        return new Move(from, to, call, served.metadataNanos()[0] / 1e9, served.ackNanos()[0] / 1e9);
    }
}

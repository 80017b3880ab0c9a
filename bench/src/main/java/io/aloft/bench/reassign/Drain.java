package io.aloft.bench.reassign;

import io.aloft.bench.cluster.ClusterClients;
import io.aloft.bench.cluster.Reassignments;
import io.aloft.bench.cluster.ServedProbe;
import io.aloft.bench.cluster.Stats;
import io.aloft.servers.NodeCluster;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.IntStream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewPartitionReassignment;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.TopicPartition;

/**
 * A broker holding {@link #PARTITIONS} partitions (the last broker: a topic of that many partitions
 * is created and the ones placed elsewhere are moved to it, {@value #PLACE_BATCH} at a time; each then gets
 * {@link #RECORDS_PER_PARTITION} records of 1 KiB) is taken out of service, timed from the first
 * action:
 * <ul>
 *   <li><b>Aloft</b>: SIGTERM. Its graceful shutdown drains: the controller moves its partitions to
 *       the other brokers. Timed: until the process has exited, and until every partition has
 *       acknowledged a probe produce at another broker ({@link ServedProbe}).</li>
 *   <li><b>Apache Kafka</b>, two ways, since with replication factor 1 a controlled shutdown moves
 *       nothing: (1) SIGTERM as is: the time until the process has exited, how many partitions
 *       Metadata then shows without a leader, and, with the broker started again at once, the time
 *       until every partition acknowledged a probe produce (on it) again; (2) what an operator does
 *       to take it out of service without that outage: one AlterPartitionReassignments moving every
 *       partition to the other brokers (round-robin; the data is copied), timed until every
 *       partition acknowledged a probe produce at its new broker, then SIGTERM, timed until the
 *       process has exited.</li>
 * </ul>
 *
 * <p>Not thread-safe: the benchmark's main thread uses it.
 */
final class Drain {
    static final String TOPIC = "drain";
    static final int PARTITIONS = 1000;
    static final int RECORDS_PER_PARTITION = 10;
    static final int PLACE_BATCH = 50;

    /** NaN or -1 where a figure does not apply to the system. */
    static final class Result {
        int victim;
        int partitions = PARTITIONS;
        double placeSeconds = Double.NaN;
        /** Aloft: SIGTERM (drain) until exit / until every partition acknowledged elsewhere. */
        double drainExitSeconds = Double.NaN;
        double drainServedSeconds = Double.NaN;
        double drainServedP50Seconds = Double.NaN;
        int drainNotServed = -1;
        /** Aloft: SIGTERM until Metadata named another broker for every partition (NaN: not all did). */
        double drainMetadataSeconds = Double.NaN;
        int drainMetadataMoved = -1;
        long probeErrorsRetriable;
        long probeErrorsOther;
        /** Kafka (1): SIGTERM with the partitions on it. */
        double shutdownExitSeconds = Double.NaN;
        int offlineAfterExit = -1;
        double restartSeconds = Double.NaN;
        double unavailableSeconds = Double.NaN;
        /** Kafka (2): reassign everything away, then SIGTERM. */
        double reassignAwaySeconds = Double.NaN;
        double reassignAwayP50Seconds = Double.NaN;
        int reassignAwayNotServed = -1;
        double emptyExitSeconds = Double.NaN;
    }

    private Drain() {
    }

    static Result run(NodeCluster cluster, Admin admin, ServedProbe probe, boolean kafka, long timeoutMs)
            throws Exception {
        Result r = new Result();
        List<Integer> brokers = cluster.brokerIds();
        int victim = brokers.get(brokers.size() - 1);
        r.victim = victim;
        List<Integer> all = IntStream.range(0, PARTITIONS).boxed().toList();
        admin.createTopics(List.of(new NewTopic(TOPIC, PARTITIONS, (short) 1))).all().get(120, TimeUnit.SECONDS);
        long start = System.nanoTime();
        List<Integer> leaders = ClusterClients.awaitLeaders(admin, TOPIC, PARTITIONS, timeoutMs);
        // Set-up, not measured: in batches, so that neither system opens hundreds at once here.
        List<Integer> elsewhere = all.stream().filter(p -> leaders.get(p) != victim).toList();
        boolean stalled = false;
        List<Integer> held = new ArrayList<>(all.stream().filter(p -> leaders.get(p) == victim).toList());
        for (int from = 0; from < elsewhere.size() && !stalled; from += PLACE_BATCH) {
            List<Integer> batch = elsewhere.subList(from, Math.min(elsewhere.size(), from + PLACE_BATCH));
            Map<TopicPartition, Optional<NewPartitionReassignment>> toVictim = new HashMap<>();
            for (int p : batch) {
                toVictim.put(new TopicPartition(TOPIC, p), Optional.of(new NewPartitionReassignment(List.of(victim))));
            }
            Reassignments.alterWithRetry(admin, toVictim, start + TimeUnit.MILLISECONDS.toNanos(timeoutMs),
                    m -> ReassignBenchmark.progress("drain set-up: %s", m));
            long batchStart = System.nanoTime();
            ServedProbe.Served placed = probe.await(TOPIC, batch, id -> id == victim, batchStart,
                    batchStart + TimeUnit.MILLISECONDS.toNanos(timeoutMs));
            for (int i = 0; i < batch.size(); i++) {
                if (placed.ackNanos()[i] >= 0) {
                    held.add(batch.get(i));
                }
            }
            if (!placed.complete()) {
                // The drain is still measured, on what the broker serves now; the report says how many.
                stalled = true;
                ReassignBenchmark.progress("drain set-up: partitions did not all reach broker %d within %d s (%d of %d "
                        + "moved so far); draining what it serves", victim, timeoutMs / 1000, from + batch.size(),
                        elsewhere.size());
            }
        }
        held.sort(null);
        r.partitions = held.size();
        r.placeSeconds = (System.nanoTime() - start) / 1e9;
        ReassignBenchmark.progress("drain: %d partitions on broker %d (%d moved there in batches of %d in %.1f s); "
                + "filling", held.size(), victim, held.size() - (all.size() - elsewhere.size()), PLACE_BATCH,
                r.placeSeconds);
        Loader.fillEach(cluster.bootstrap(), TOPIC, held, RECORDS_PER_PARTITION);

        if (!kafka) {
            long t0 = System.nanoTime();
            AtomicLong exitAt = new AtomicLong();
            CompletableFuture<Process> exit = cluster.terminate(victim);
            exit.thenRun(() -> exitAt.set(System.nanoTime()));
            ServedProbe.Served served = probe.await(TOPIC, held, id -> id != victim, t0,
                    t0 + TimeUnit.MILLISECONDS.toNanos(timeoutMs));
            exit.get(Math.max(1, timeoutMs - (System.nanoTime() - t0) / 1_000_000), TimeUnit.MILLISECONDS);
            r.drainExitSeconds = (exitAt.get() - t0) / 1e9;
            r.drainServedSeconds = served.lastAckSeconds();
            r.drainServedP50Seconds = p50(served);
            r.drainNotServed = notServed(served);
            r.drainMetadataMoved = (int) Arrays.stream(served.metadataNanos()).filter(m -> m >= 0).count();
            r.drainMetadataSeconds = r.drainMetadataMoved < held.size() ? Double.NaN
                    : Arrays.stream(served.metadataNanos()).max().getAsLong() / 1e9;
            r.probeErrorsRetriable = served.probeErrorsRetriable();
            r.probeErrorsOther = served.probeErrorsOther();
            ReassignBenchmark.progress("drain: broker %d exited %.2f s after SIGTERM; Metadata named another broker "
                    + "for %d partitions (all after %.2f s); served elsewhere after %.2f s (%d not within the "
                    + "deadline)", victim, r.drainExitSeconds, r.drainMetadataMoved, r.drainMetadataSeconds,
                    r.drainServedSeconds, r.drainNotServed);
            return r;
        }

        // (1) Controlled shutdown as is: RF 1 partitions have nowhere to go.
        long t0 = System.nanoTime();
        cluster.terminate(victim).get(timeoutMs, TimeUnit.MILLISECONDS);
        r.shutdownExitSeconds = (System.nanoTime() - t0) / 1e9;
        r.offlineAfterExit = (int) ServedProbe.leaders(admin, TOPIC).stream().filter(l -> l < 0).count();
        ReassignBenchmark.progress("drain: Kafka broker %d exited %.2f s after SIGTERM; %d of %d partitions without a "
                + "leader; starting it again", victim, r.shutdownExitSeconds, r.offlineAfterExit, PARTITIONS);
        long restart = System.nanoTime();
        cluster.relaunch(victim);
        r.restartSeconds = (System.nanoTime() - restart) / 1e9;
        ServedProbe.Served back = probe.await(TOPIC, held, id -> id == victim, t0,
                System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs));
        r.unavailableSeconds = back.lastAckSeconds();
        r.probeErrorsRetriable += back.probeErrorsRetriable();
        r.probeErrorsOther += back.probeErrorsOther();
        ReassignBenchmark.progress("drain: Kafka broker %d back (start %.1f s); every partition acknowledged %.2f s "
                + "after the SIGTERM", victim, r.restartSeconds, r.unavailableSeconds);

        // (2) Reassign everything away first (what kafka-reassign-partitions does), then stop it.
        List<Integer> others = new ArrayList<>(brokers);
        others.remove(Integer.valueOf(victim));
        Map<TopicPartition, Optional<NewPartitionReassignment>> away = new HashMap<>();
        for (int p : held) {
            away.put(new TopicPartition(TOPIC, p),
                    Optional.of(new NewPartitionReassignment(List.of(others.get(p % others.size())))));
        }
        long t1 = System.nanoTime();
        admin.alterPartitionReassignments(away).all().get(timeoutMs, TimeUnit.MILLISECONDS);
        ServedProbe.Served moved = probe.await(TOPIC, held, id -> id != victim, t1,
                t1 + TimeUnit.MILLISECONDS.toNanos(timeoutMs));
        r.reassignAwaySeconds = moved.lastAckSeconds();
        r.reassignAwayP50Seconds = p50(moved);
        r.reassignAwayNotServed = notServed(moved);
        r.probeErrorsRetriable += moved.probeErrorsRetriable();
        r.probeErrorsOther += moved.probeErrorsOther();
        long t2 = System.nanoTime();
        cluster.terminate(victim).get(timeoutMs, TimeUnit.MILLISECONDS);
        r.emptyExitSeconds = (System.nanoTime() - t2) / 1e9;
        ReassignBenchmark.progress("drain: Kafka moved the %d partitions away in %.2f s (%d not within the deadline); "
                + "then the empty broker exited %.2f s after SIGTERM", PARTITIONS, r.reassignAwaySeconds,
                r.reassignAwayNotServed, r.emptyExitSeconds);
        return r;
    }

    private static double p50(ServedProbe.Served s) {
        double[] acked = Arrays.stream(s.ackNanos()).filter(a -> a >= 0).mapToDouble(a -> a / 1e9).toArray();
        return Stats.percentile(acked, 50);
    }

    private static int notServed(ServedProbe.Served s) {
        return (int) Arrays.stream(s.ackNanos()).filter(a -> a < 0).count();
    }
}

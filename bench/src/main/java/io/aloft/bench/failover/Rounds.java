package io.aloft.bench.failover;

import io.aloft.bench.cluster.Reassignments;
import io.aloft.bench.cluster.ServedProbe;
import io.aloft.bench.cluster.Stats;
import io.aloft.servers.NodeCluster;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewPartitionReassignment;
import org.apache.kafka.common.TopicPartition;

/**
 * The kill rounds of one setting. Each round SIGKILLs one broker (round-robin) and times, from just
 * before the kill, until every partition it led acknowledged a probe produce again ({@link
 * ServedProbe#await}: Metadata, polled every {@value ServedProbe#POLL_MANY_MS} ms, names a live
 * broker as leader, then a probe produce, {@code acks=all}, is acknowledged). Then the broker is
 * started again on its data, its partitions are moved back to it (so that every round kills a
 * broker holding a third of them), and the round ends once every partition of the load has had a
 * record acknowledged within the last second, and again {@value #SETTLE_MS} ms later.
 *
 * <p>With the block WAL ({@code objectWal} false) no other broker can read the dead broker's WAL
 * today, so a round waits at most {@value #BLOCK_CAP_MS} ms for its partitions to be served
 * elsewhere; then it starts the broker again and times until they are served by any broker, and
 * the round says it waited for the restart.
 *
 * <p>Not thread-safe: the benchmark's main thread runs it.
 */
final class Rounds {
    static final long BLOCK_CAP_MS = 30_000;
    static final long OBJECT_CAP_MS = 90_000;
    static final long STEADY_MS = 1_000;
    static final long SETTLE_MS = 2_000;
    static final long STEADY_TIMEOUT_MS = 60_000;

    /** One round; times in seconds from just before the SIGKILL, NaN where not reached. */
    record Round(int number, int victim, int partitions, double[] servedSeconds, double metadataSeconds,
            double loadFirstAckSeconds, boolean waitedForRestart, int notServed, double restartSeconds,
            double moveBackSeconds, double steadySeconds, long probeErrorsRetriable, long probeErrorsOther,
            LogEvidence.Breakdown logs) {
        /** When the last of the victim's partitions acknowledged a probe: the failover time. */
        double failoverSeconds() {
            if (notServed > 0 || servedSeconds.length == 0) {
                return Double.NaN;
            }
            return Arrays.stream(servedSeconds).max().orElse(Double.NaN);
        }

        double p50PartitionSeconds() {
            return Stats.percentile(Arrays.stream(servedSeconds).filter(s -> !Double.isNaN(s)).toArray(), 50);
        }
    }

    private Rounds() {
    }

    /**
     * Runs {@code rounds} rounds against {@code cluster}, whose topic {@code topic} is placed as
     * {@code home} (partition to broker) and carries {@code load}.
     */
    static List<Round> run(NodeCluster cluster, Admin admin, ServedProbe probe, SequencedProducer load, String topic,
            List<Integer> home, int rounds, boolean objectWal, String label) throws Exception {
        List<Integer> brokers = cluster.brokerIds();
        List<Round> out = new ArrayList<>();
        for (int number = 1; number <= rounds; number++) {
            int victim = brokers.get((number - 1) % brokers.size());
            List<Integer> leaders = ServedProbe.leaders(admin, topic);
            List<Integer> held = new ArrayList<>();
            for (int p = 0; p < leaders.size(); p++) {
                if (leaders.get(p) == victim) {
                    held.add(p);
                }
            }
            load.round(number);
            LocalDateTime killedAt = LocalDateTime.now();
            long t0 = System.nanoTime();
            cluster.kill(victim);
            // After the exit: an acknowledgement from now on came from a broker still alive.
            load.resetFirstAcks();
            FailoverBenchmark.progress("%s round %d: SIGKILLed broker %d (pid gone) holding %d partitions %s", label,
                    number, victim, held.size(), held);
            long cap = TimeUnit.MILLISECONDS.toNanos(objectWal ? OBJECT_CAP_MS : BLOCK_CAP_MS);
            ServedProbe.Served served = probe.await(topic, held, id -> id != victim, t0, t0 + cap);
            boolean waited = false;
            long restartStart = System.nanoTime();
            double restartSeconds;
            ServedProbe.Served after = null;
            if (!served.complete() && !objectWal) {
                // The block WAL today: the partitions come back with their broker.
                waited = true;
                List<Integer> rest = new ArrayList<>();
                for (int i = 0; i < held.size(); i++) {
                    if (served.ackNanos()[i] < 0) {
                        rest.add(held.get(i));
                    }
                }
                FailoverBenchmark.progress("%s round %d: %d partitions not served elsewhere after %d s; restarting "
                        + "broker %d", label, number, rest.size(), BLOCK_CAP_MS / 1000, victim);
                restartStart = System.nanoTime();
                cluster.relaunch(victim);
                restartSeconds = (System.nanoTime() - restartStart) / 1e9;
                after = probe.await(topic, rest, id -> true, t0, System.nanoTime() + TimeUnit.SECONDS.toNanos(90));
            } else {
                cluster.relaunch(victim);
                restartSeconds = (System.nanoTime() - restartStart) / 1e9;
            }
            double[] servedSeconds = new double[held.size()];
            long[] metadata = served.metadataNanos();
            int notServed = 0;
            int j = 0;
            for (int i = 0; i < held.size(); i++) {
                long ack = served.ackNanos()[i];
                if (ack < 0 && after != null) {
                    ack = after.ackNanos()[j++];
                }
                servedSeconds[i] = ack < 0 ? Double.NaN : ack / 1e9;
                notServed += ack < 0 ? 1 : 0;
            }
            double metadataSeconds = Arrays.stream(metadata).allMatch(m -> m >= 0) && metadata.length > 0
                    ? Arrays.stream(metadata).max().getAsLong() / 1e9 : Double.NaN;
            long loadLast = held.isEmpty() ? -1 : t0;
            for (int p : held) {
                long at = load.firstAckNanos(p);
                loadLast = at < 0 || loadLast < 0 ? -1 : Math.max(loadLast, at);
            }
            double loadFirst = loadLast < 0 ? Double.NaN : (loadLast - t0) / 1e9;
            double moveBack = moveBack(cluster, admin, probe, topic, home, label, number);
            // Read late: a broker may open the partitions before it logs that the WAL is recovered.
            LogEvidence.Breakdown logs = LogEvidence.read(cluster, victim, killedAt);
            long steadyStart = System.nanoTime();
            double steady = awaitSteady(load, steadyStart);
            long retriable = served.probeErrorsRetriable() + (after == null ? 0 : after.probeErrorsRetriable());
            long other = served.probeErrorsOther() + (after == null ? 0 : after.probeErrorsOther());
            Round r = new Round(number, victim, held.size(), servedSeconds, metadataSeconds, loadFirst, waited,
                    notServed, restartSeconds, moveBack, steady, retriable, other, logs);
            out.add(r);
            FailoverBenchmark.progress("%s round %d: every partition of broker %d served again after %.2f s (p50 "
                    + "partition %.2f s; fenced %.2f s; WAL recovered %.2f s; Metadata %.2f s; load's first ack %.2f s)%s; "
                    + "restart %.1f s, moved back %.1f s, steady %.1f s later", label, number, victim, r.failoverSeconds(),
                    r.p50PartitionSeconds(), logs.fencedSeconds(), logs.walRecoveredSeconds(), metadataSeconds,
                    loadFirst, waited ? " (waited for the restart)" : "",
                    restartSeconds, moveBack, steady);
        }
        return out;
    }

    /** Moves every partition not on its home broker back there; seconds until all acknowledged a probe there. */
    private static double moveBack(NodeCluster cluster, Admin admin, ServedProbe probe, String topic,
            List<Integer> home, String label, int number) throws Exception {
        long start = System.nanoTime();
        List<Integer> leaders = ServedProbe.leaders(admin, topic);
        Map<Integer, List<Integer>> byTarget = new HashMap<>();
        Map<TopicPartition, Optional<NewPartitionReassignment>> moves = new HashMap<>();
        for (int p = 0; p < home.size(); p++) {
            if (!leaders.get(p).equals(home.get(p))) {
                byTarget.computeIfAbsent(home.get(p), b -> new ArrayList<>()).add(p);
                moves.put(new TopicPartition(topic, p), Optional.of(new NewPartitionReassignment(List.of(home.get(p)))));
            }
        }
        if (moves.isEmpty()) {
            return 0;
        }
        long deadline = start + TimeUnit.SECONDS.toNanos(60);
        Reassignments.alterWithRetry(admin, moves, deadline,
                m -> FailoverBenchmark.progress("%s round %d: moving back: %s", label, number, m));
        for (Map.Entry<Integer, List<Integer>> e : byTarget.entrySet()) {
            int target = e.getKey();
            ServedProbe.Served s = probe.await(topic, e.getValue(), id -> id == target, start, deadline);
            if (!s.complete()) {
                throw new IllegalStateException(label + " round " + number + ": partitions " + e.getValue()
                        + " not back on broker " + target + " within 60 s");
            }
        }
        return (System.nanoTime() - start) / 1e9;
    }

    /**
     * Waits until every partition of the load had a record acknowledged within {@link #STEADY_MS},
     * twice {@link #SETTLE_MS} apart.
     */
    private static double awaitSteady(SequencedProducer load, long start) throws InterruptedException {
        long deadline = start + TimeUnit.MILLISECONDS.toNanos(STEADY_TIMEOUT_MS);
        while (!load.allAckedWithin(STEADY_MS) || !settled(load)) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("the load did not become steady within " + STEADY_TIMEOUT_MS / 1000
                        + " s: some partition has had no record acknowledged for " + STEADY_MS + " ms");
            }
            Thread.sleep(100); // the load's acknowledgements are the event; polling them is cheap
        }
        return (System.nanoTime() - start) / 1e9;
    }

    private static boolean settled(SequencedProducer load) throws InterruptedException {
        Thread.sleep(SETTLE_MS); // a benchmark's settling pause: the load must stay served through it
        return load.allAckedWithin(STEADY_MS);
    }
}

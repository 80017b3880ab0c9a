package io.aloft.bench.failover;

import io.aloft.bench.cluster.BackgroundProducer;
import io.aloft.bench.cluster.ClusterClients;
import io.aloft.servers.AloftCluster;
import io.aloft.stream.wal.ObjectWalConfig;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.TopicPartition;

/**
 * The WAL cost phase: one Aloft broker (objects on a local versitygw), the same open-loop load
 * ({@link BackgroundProducer}: idempotent, {@code acks=all}, 1 KiB records at a fixed rate over
 * {@value #PARTITIONS} partitions), once with the WAL in object storage ({@code wal.url}, the same
 * gateway) and once with the block WAL (a file with Direct IO under the broker's data directory).
 * Reported: produce latency from each record's due time (p50 / p99 / max) over a measured window
 * after a warm-up, and for the object WAL the PUTs it made in that window ({@link WalPuts}).
 *
 * <p>Not thread-safe: the benchmark's main thread runs it.
 */
final class WalCost {
    static final String TOPIC = "wal-cost";
    static final int PARTITIONS = 12;
    static final long WARMUP_MS = 5_000;

    /**
     * One WAL's run at one offered load; {@code batchIntervalMs} the object WAL's
     * {@code wal.object.batch.interval.ms}, null for its default or the block WAL; {@code puts}
     * null for the block WAL; {@code error} set if it failed.
     */
    record Result(String wal, int offeredMibPerSecond, Long batchIntervalMs, String description,
            BackgroundProducer.Phase phase, double seconds, WalPuts.Result puts, String error) {
        /** The WAL and its batch interval, e.g. {@code object, 100 ms}. */
        String label() {
            if (wal.equals("block")) {
                return wal;
            }
            return wal + ", " + (batchIntervalMs == null ? "default interval ("
                    + ObjectWalConfig.BATCH_INTERVAL_MS.defaultValue() + " ms)" : batchIntervalMs + " ms");
        }

        double ackedBytes() {
            return phase == null ? 0 : phase.acked() * (double) BackgroundProducer.RECORD_BYTES;
        }

        /** Records-object PUTs per GiB of record values acknowledged; NaN without counts. */
        double putsPerGib() {
            return puts == null || ackedBytes() == 0 ? Double.NaN : puts.recordObjects() / (ackedBytes() / (1L << 30));
        }

        double putsPerGibWithTrims() {
            return puts == null || ackedBytes() == 0 ? Double.NaN
                    : (puts.recordObjects() + puts.trimPuts()) / (ackedBytes() / (1L << 30));
        }
    }

    private WalCost() {
    }

    /**
     * @param mibPerSecond the offered load, MiB/s of 1 KiB records
     * @param batchIntervalMs the object WAL's batch interval, or null for its default
     */
    static Result run(boolean objectWal, Path work, Path logDir, int mibPerSecond, Long batchIntervalMs,
            long windowMs) {
        String wal = objectWal ? "object" : "block";
        int ratePerSecond = mibPerSecond * 1024;
        Map<String, String> props = batchIntervalMs == null ? Map.of()
                : Map.of(ObjectWalConfig.BATCH_INTERVAL_MS_CONFIG, Long.toString(batchIntervalMs));
        String run = wal + "-" + mibPerSecond + "mib" + (batchIntervalMs == null ? "" : "-" + batchIntervalMs + "ms");
        AloftCluster cluster = new AloftCluster(1, FailoverBenchmark.HEAP, true, work, props, Duration.ofSeconds(180));
        if (objectWal) {
            cluster.objectWal();
        }
        FailoverBenchmark.current = cluster;
        FailoverBenchmark.progress("WAL cost (%s): starting one broker, %d MiB/s offered", run, mibPerSecond);
        try {
            cluster.start();
            try (Admin admin = ClusterClients.admin(cluster.bootstrap())) {
                admin.createTopics(List.of(new NewTopic(TOPIC, PARTITIONS, (short) 1))).all().get(120,
                        TimeUnit.SECONDS);
                ClusterClients.awaitLeaders(admin, TOPIC, PARTITIONS, 60_000);
            }
            List<TopicPartition> tps = new ArrayList<>();
            for (int p = 0; p < PARTITIONS; p++) {
                tps.add(new TopicPartition(TOPIC, p));
            }
            try (BackgroundProducer producer = new BackgroundProducer(cluster.bootstrap(), tps, ratePerSecond).start()) {
                FailoverBenchmark.pause(WARMUP_MS);
                producer.phase(); // the warm-up is not measured
                WalPuts counter = objectWal ? new WalPuts(cluster.walObjectDir(1)).start() : null;
                long start = System.nanoTime();
                FailoverBenchmark.pause(windowMs);
                BackgroundProducer.Phase phase = producer.phase();
                double seconds = (System.nanoTime() - start) / 1e9;
                WalPuts.Result puts = counter == null ? null : counter.stop();
                Result r = new Result(wal, mibPerSecond, batchIntervalMs, cluster.description(), phase, seconds, puts,
                        null);
                FailoverBenchmark.progress("WAL cost (%s): %d records acknowledged in %.1f s, p50 %.1f ms, p99 "
                        + "%.1f ms%s", run, phase.acked(), seconds,
                        phase.latencyMicros().getValueAtPercentile(50) / 1000.0,
                        phase.latencyMicros().getValueAtPercentile(99) / 1000.0, puts == null ? ""
                                : String.format(", %d WAL PUTs (%.0f per GiB) + %d trim PUTs", puts.recordObjects(),
                                        r.putsPerGib(), puts.trimPuts()));
                return r;
            }
        } catch (Exception e) {
            FailoverBenchmark.progress("WAL cost (%s): failed: %s", run, e);
            e.printStackTrace();
            return new Result(wal, mibPerSecond, batchIntervalMs, cluster.description(), null, 0, null, e.toString());
        } finally {
            cluster.saveLogs(logDir.resolve("cost-" + run));
            cluster.close();
            FailoverBenchmark.current = null;
        }
    }
}

package io.aloft.broker;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.aloft.stream.storage.S3Server;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Object storage goes away under load and comes back (issue 14): a real S3 server (versitygw, or
 * MinIO with {@code -Daloft.test.s3=minio}) holding a broker's objects is stopped for
 * {@code -Daloft.outage.seconds} (default 12; 60 for the long run) while an idempotent acks=all
 * producer writes sequence numbers to a few partitions, then started again on the same port, data
 * and keys. For each WAL placement (a block WAL, the default; the WAL in the same object storage):
 *
 * <ul>
 *   <li>the broker process stays up throughout, and its log shows no {@code OutOfMemoryError};
 *   <li>the producer sees no error it cannot retry (retriable ones, which it absorbs, are counted);
 *   <li>with the block WAL, produce goes on being acknowledged during the outage: unuploaded data
 *       waits in the log cache ({@code s3.log.cache.size.bytes}), which this modest load does not
 *       fill; with a log cache it fills within seconds, produce is then refused with a retriable
 *       error (counted) rather than the partitions failing;
 *   <li>once the server is back every partition acknowledges more within a bound, and at the end
 *       every acknowledged record is in its partition once, in order.
 * </ul>
 *
 * <p>Each placement prints one OUTAGE line: records acknowledged while the server was down, retries
 * the producer made, and the seconds from the server's return until every partition acknowledged
 * again.
 *
 * <p>One outage for the three placements: a single-broker cluster each (their own buckets on this
 * class's server), loaded side by side, all three through the same stop and restart of the server
 * ({@link #outage}, once for the class); each test then checks its own placement's outcome. Each
 * used to have an outage of its own, about 20 s apiece.
 *
 * <p>The server is this class's own (not {@code S3ServerExtension}'s shared one): stopping that
 * would take object storage from every other class of the run.
 */
class ObjectStorageOutageTest {
    private static final String TOPIC = "outage";
    private static final int PARTITIONS = 4;
    /**
     * 12 s by default: past the 8 s after which the object WAL used to give up its PUTs and stop.
     * The outage lasts until the block-full placement's producer met a refusal too (this load fills
     * its log cache in 6 to 9 s), up to {@link #MAX_OUTAGE_SECONDS}.
     */
    private static final int OUTAGE_SECONDS = Integer.getInteger("aloft.outage.seconds", 12);
    private static final int MAX_OUTAGE_SECONDS = Math.max(OUTAGE_SECONDS, 60);
    /** A record to each partition every 5 ms: 800 small records a second, about 30 KiB/s of batches. */
    private static final long ROUND_MICROS = 5_000;
    /** What "acknowledging again" means after the server is back: this many more per partition. */
    private static final int RESUMED_RECORDS = 20;

    @TempDir
    static Path dir;

    private static S3Server s3;
    /** By placement, in start order: block, block-full, object. */
    private static final Map<String, Placement> placements = new LinkedHashMap<>();

    /** One broker's placement under the outage: its cluster, its load, and what the outage did to it. */
    private static final class Placement {
        final String name;
        final TestCluster cluster;
        final SequenceProducer producer;
        long retriesBefore;
        int[] atStop;
        Outcome outcome;
        /** Its produce did not resume after the outage (kept for its test, so the others still run theirs). */
        AssertionError notResumed;

        Placement(String name, TestCluster cluster, SequenceProducer producer) {
            this.name = name;
            this.cluster = cluster;
            this.producer = producer;
        }
    }

    /**
     * Starts the server and the three clusters (one after another: each takes seconds, and the
     * clusters' log directories are named by their start time), loads them, stops the server for
     * {@link #OUTAGE_SECONDS} (longer until the block-full placement was refused, see above), checks
     * every broker stays up meanwhile, starts the server again and waits for each placement's
     * produce to resume; then stops the producers.
     */
    @BeforeAll
    static void outage() throws Exception {
        s3 = S3Server.start(S3Server.configuredKind());
        start("block", Map.of());
        start("block-full", Map.of("s3.log.cache.size.bytes", Long.toString(256 << 10),
                "s3.wal.upload.threshold.bytes", Long.toString(64 << 10), "s3.append.timeout.ms", "5000"));
        start("object", Map.of("wal.url", s3.createBucket("outage-wal")));
        for (Placement pl : placements.values()) {
            pl.producer.start();
        }
        for (Placement pl : placements.values()) {
            for (int p = 0; p < PARTITIONS; p++) {
                pl.producer.awaitAcknowledged(p, 100, pl.name + ": before the outage");
            }
        }
        for (Placement pl : placements.values()) {
            pl.retriesBefore = pl.producer.retries();
            pl.atStop = pl.producer.acknowledgedNow();
        }
        Placement full = placements.get("block-full");
        s3.stop();
        long stopped = System.nanoTime();
        long end = stopped + TimeUnit.SECONDS.toNanos(OUTAGE_SECONDS);
        long latest = stopped + TimeUnit.SECONDS.toNanos(MAX_OUTAGE_SECONDS);
        while (System.nanoTime() < end
                || (full.producer.retries() == full.retriesBefore && System.nanoTime() < latest)) {
            for (Placement pl : placements.values()) {
                assertTrue(pl.cluster.alive(1), pl.name + ": the broker exited during the outage; see "
                        + pl.cluster.logFile(1));
                pl.producer.rethrow(pl.name + ": during the outage");
            }
            TimeUnit.MILLISECONDS.sleep(200);
        }
        Map<String, int[]> atRestart = new HashMap<>();
        for (Placement pl : placements.values()) {
            atRestart.put(pl.name, pl.producer.acknowledgedNow());
        }
        s3.restart();
        long restarted = System.nanoTime();
        double outageSeconds = (restarted - stopped) / 1e9;
        for (Placement pl : placements.values()) {
            int[] restartCounts = atRestart.get(pl.name);
            try {
                for (int p = 0; p < PARTITIONS; p++) {
                    pl.producer.awaitAcknowledged(p, restartCounts[p] + RESUMED_RECORDS, pl.name
                            + ": after object storage came back");
                }
            } catch (AssertionError e) {
                pl.notResumed = e;
                continue;
            }
            double resumedSeconds = (System.nanoTime() - restarted) / 1e9;
            pl.outcome = new Outcome(pl.name, sum(restartCounts) - sum(pl.atStop),
                    pl.producer.retries() - pl.retriesBefore, resumedSeconds);
            System.out.printf("OUTAGE placement=%s outage_s=%.1f acknowledged_during_outage=%d retriable_errors=%d"
                    + " produce_resumed_after_s=%.2f acknowledged_at_stop=%s at_restart=%s%n", pl.name,
                    outageSeconds, pl.outcome.acknowledgedDuringOutage(), pl.outcome.retries(), resumedSeconds,
                    Arrays.toString(pl.atStop), Arrays.toString(restartCounts));
        }
        for (Placement pl : placements.values()) {
            pl.producer.stop();
        }
    }

    /** A single-broker cluster for placement {@code name}, with {@code walProps} and its own data bucket. */
    private static void start(String name, Map<String, String> walProps) throws Exception {
        Map<String, String> props = new HashMap<>(walProps);
        props.put("s3.url", s3.createBucket("outage-data-" + name));
        TestCluster cluster = TestCluster.start(Files.createDirectories(dir.resolve(name)), 1, 0, props);
        try (Admin admin = cluster.admin(1)) {
            admin.createTopics(List.of(new NewTopic(TOPIC, PARTITIONS, (short) 1))).all().get(60, TimeUnit.SECONDS);
        } catch (Exception | Error e) {
            cluster.close();
            throw e;
        }
        placements.put(name, new Placement(name, cluster,
                new SequenceProducer(cluster.bootstrap(1), TOPIC, PARTITIONS, ROUND_MICROS)));
    }

    @AfterAll
    static void stopAll() throws Exception {
        for (Placement pl : placements.values()) {
            pl.producer.stop();
            pl.cluster.close();
        }
        placements.clear();
        if (s3 != null) {
            s3.close();
        }
    }

    @Test
    void s3Outage_blockWal_acknowledgesWithinLogCache_resumes_nothingLost() throws Exception {
        Outcome o = verify("block");
        assertTrue(o.acknowledgedDuringOutage() > 0, "the block WAL acknowledges into the log cache while object "
                + "storage is down: " + o);
    }

    /**
     * The block WAL with a log cache this load fills within seconds of the outage: once data not
     * yet uploaded nears the budget, produce is refused with a retriable error before taking offsets
     * (the partitions do not fail: an append left waiting past {@code s3.append.timeout.ms} used to
     * stop its log for good); once object storage is back, uploads make room and produce resumes.
     */
    @Test
    void s3Outage_blockWal_logCacheFull_answersRetriable_resumes_nothingLost() throws Exception {
        Outcome o = verify("block-full");
        assertTrue(o.retries() > 0, "appends refused once the log cache is full: " + o);
    }

    /**
     * The WAL in the same object storage: its PUTs are retried for as long as the outage lasts (the
     * broker used to give up after 5 attempts, about 8 s, and stop); appends wait, and new produce is
     * refused (retriable) once what waits nears the log cache's budget.
     */
    @Test
    void s3Outage_objectStorageWal_answersRetriable_resumes_nothingLost() throws Exception {
        verify("object");
    }

    private record Outcome(String placement, long acknowledgedDuringOutage, long retries, double resumedSeconds) {
    }

    /**
     * What holds for every placement: produce resumed after the outage, the producer met no error it
     * could not retry, the broker runs with no {@code OutOfMemoryError} in its log, and every
     * acknowledged record is in its partition once, in order. Returns the placement's outcome.
     */
    private static Outcome verify(String name) throws Exception {
        Placement pl = placements.get(name);
        if (pl.notResumed != null) {
            throw pl.notResumed;
        }
        pl.producer.rethrow(name + ": after the outage");
        assertTrue(pl.cluster.alive(1), name + ": the broker runs after the outage; see " + pl.cluster.logFile(1));
        String brokerLog = Files.readString(pl.cluster.logFile(1), StandardCharsets.UTF_8);
        assertFalse(brokerLog.contains("OutOfMemoryError"), name + ": OutOfMemoryError in " + pl.cluster.logFile(1));
        SequenceProducer.assertEveryAcknowledgedRecordOnceInOrder(pl.cluster.bootstrap(1), pl.producer, TOPIC);
        return pl.outcome;
    }

    private static long sum(int[] counts) {
        return Arrays.stream(counts).asLongStream().sum();
    }
}

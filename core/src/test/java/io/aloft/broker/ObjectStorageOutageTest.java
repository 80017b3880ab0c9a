package io.aloft.broker;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.aloft.stream.storage.S3Server;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
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
 * <p>The server is this class's own (not {@code S3ServerExtension}'s shared one): stopping that
 * would take object storage from every other class of the run.
 */
class ObjectStorageOutageTest {
    private static final String TOPIC = "outage";
    private static final int PARTITIONS = 4;
    /**
     * 12 s by default: past the 8 s after which the object WAL used to give up its PUTs and stop.
     * The block-full case's outage lasts until the producer met a refusal too (this load fills its
     * log cache in 6 to 9 s), up to {@link #MAX_OUTAGE_SECONDS}.
     */
    private static final int OUTAGE_SECONDS = Integer.getInteger("aloft.outage.seconds", 12);
    private static final int MAX_OUTAGE_SECONDS = Math.max(OUTAGE_SECONDS, 60);
    /** A record to each partition every 5 ms: 800 small records a second, about 30 KiB/s of batches. */
    private static final long ROUND_MICROS = 5_000;
    /** What "acknowledging again" means after the server is back: this many more per partition. */
    private static final int RESUMED_RECORDS = 20;

    @TempDir
    Path dir;

    private S3Server s3;

    @BeforeEach
    void startS3() {
        s3 = S3Server.start(S3Server.configuredKind());
    }

    @AfterEach
    void stopS3() {
        if (s3 != null) {
            s3.close();
        }
    }

    @Test
    void s3Outage_blockWal_acknowledgesWithinLogCache_resumes_nothingLost() throws Exception {
        Outcome o = runOutage("block", Map.of(), false);
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
        Outcome o = runOutage("block-full", Map.of("s3.log.cache.size.bytes", Long.toString(256 << 10),
                "s3.wal.upload.threshold.bytes", Long.toString(64 << 10), "s3.append.timeout.ms", "5000"), true);
        assertTrue(o.retries() > 0, "appends refused once the log cache is full: " + o);
    }

    /**
     * The WAL in the same object storage: its PUTs are retried for as long as the outage lasts (the
     * broker used to give up after 5 attempts, about 8 s, and stop); appends wait, and new produce is
     * refused (retriable) once what waits nears the log cache's budget.
     */
    @Test
    void s3Outage_objectStorageWal_answersRetriable_resumes_nothingLost() throws Exception {
        String walUrl = s3.createBucket("outage-wal");
        runOutage("object", Map.of("wal.url", walUrl), false);
    }

    private record Outcome(String placement, long acknowledgedDuringOutage, long retries, double resumedSeconds) {
    }

    /**
     * One outage under load. {@code untilRefused}: it lasts past {@link #OUTAGE_SECONDS} until the
     * producer has met a retriable refusal, within {@link #MAX_OUTAGE_SECONDS} (the caller asserts
     * there was one).
     */
    private Outcome runOutage(String placement, Map<String, String> walProps, boolean untilRefused)
            throws Exception {
        Map<String, String> props = new HashMap<>(walProps);
        props.put("s3.url", s3.createBucket("outage-data"));
        try (TestCluster cluster = TestCluster.start(dir, 1, 0, props); Admin admin = cluster.admin(1)) {
            admin.createTopics(List.of(new NewTopic(TOPIC, PARTITIONS, (short) 1))).all().get(60, TimeUnit.SECONDS);
            SequenceProducer producer = new SequenceProducer(cluster.bootstrap(1), TOPIC, PARTITIONS, ROUND_MICROS);
            producer.start();
            Outcome outcome;
            try {
                for (int p = 0; p < PARTITIONS; p++) {
                    producer.awaitAcknowledged(p, 100, "before the outage");
                }
                long retriesBefore = producer.retries();
                int[] atStop = producer.acknowledgedNow();
                s3.stop();
                long stopped = System.nanoTime();
                long end = stopped + TimeUnit.SECONDS.toNanos(OUTAGE_SECONDS);
                long latest = stopped + TimeUnit.SECONDS.toNanos(MAX_OUTAGE_SECONDS);
                while (System.nanoTime() < end
                        || (untilRefused && producer.retries() == retriesBefore && System.nanoTime() < latest)) {
                    assertTrue(cluster.alive(1), placement + ": the broker exited during the outage; see "
                            + cluster.logFile(1));
                    producer.rethrow(placement + ": during the outage");
                    TimeUnit.MILLISECONDS.sleep(200);
                }
                int[] atRestart = producer.acknowledgedNow();
                long acknowledgedDuringOutage = sum(atRestart) - sum(atStop);
                s3.restart();
                long restarted = System.nanoTime();
                double outageSeconds = (restarted - stopped) / 1e9;
                for (int p = 0; p < PARTITIONS; p++) {
                    producer.awaitAcknowledged(p, atRestart[p] + RESUMED_RECORDS, placement
                            + ": after object storage came back");
                }
                double resumedSeconds = (System.nanoTime() - restarted) / 1e9;
                outcome = new Outcome(placement, acknowledgedDuringOutage, producer.retries() - retriesBefore,
                        resumedSeconds);
                System.out.printf("OUTAGE placement=%s outage_s=%.1f acknowledged_during_outage=%d retriable_errors=%d"
                        + " produce_resumed_after_s=%.2f acknowledged_at_stop=%s at_restart=%s%n", placement,
                        outageSeconds, acknowledgedDuringOutage, outcome.retries(), resumedSeconds,
                        Arrays.toString(atStop), Arrays.toString(atRestart));
            } finally {
                producer.stop();
            }
            producer.rethrow(placement + ": after the outage");
            assertTrue(cluster.alive(1), placement + ": the broker runs after the outage; see " + cluster.logFile(1));
            String brokerLog = Files.readString(cluster.logFile(1), StandardCharsets.UTF_8);
            assertFalse(brokerLog.contains("OutOfMemoryError"), placement + ": OutOfMemoryError in "
                    + cluster.logFile(1));
            SequenceProducer.assertEveryAcknowledgedRecordOnceInOrder(cluster.bootstrap(1), producer, TOPIC);
            return outcome;
        }
    }

    private static long sum(int[] counts) {
        return Arrays.stream(counts).asLongStream().sum();
    }
}

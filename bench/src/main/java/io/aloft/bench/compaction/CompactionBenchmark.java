package io.aloft.bench.compaction;

import io.aloft.broker.log.cleaner.CleanerStats;
import io.aloft.stream.storage.ObjectStorageStats;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.HdrHistogram.Histogram;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.LogDirDescription;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.ReplicaInfo;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Key compaction benchmark (issue 12), the same workload on Apache Kafka 4.3.1 and on Aloft, one
 * after the other on this machine:
 * <ol>
 *   <li>a one-partition topic, {@code cleanup.policy=delete} and 64 MiB segments (8 MiB quick), is
 *       loaded with 1 GiB (128 MiB quick) of 1 KiB values whose keys are drawn at random from a
 *       set a tenth the size of the record count ("10% unique keys");</li>
 *   <li>a latency probe (1 KiB records at 500/s, acks=all, over 4 partitions of another topic)
 *       runs for a baseline window; one more record after {@code segment.ms} makes Kafka roll its
 *       active segment, so on both systems the whole gigabyte is cleanable;</li>
 *   <li>{@code cleanup.policy} is switched to {@code compact} (kafka-configs' AlterConfigs) and the
 *       partition's size (DescribeLogDirs) is polled until it has stopped falling: the compaction
 *       time runs from the switch to the last fall, the probe still running.</li>
 * </ol>
 * Reported per system: compaction throughput (MB of input per second), the size before and after,
 * the probe's latency without and during compaction; for Aloft also object-storage bytes read and
 * written per MB compacted, the key map allocated and the rise of heap in use during compaction.
 *
 * <p>Usage: {@code CompactionBenchmark --dir DIR --json-dir DIR [--quick]}. Confined to its main
 * thread (plus the probe's and the heap sampler's).
 */
public final class CompactionBenchmark {
    static final String TOPIC = "compacted";
    static final String PROBE_TOPIC = "probe";
    static final int VALUE_BYTES = 1000;
    static final int PROBE_RATE = 500;
    private static final long MB = 1_000_000;
    private static final long START = System.nanoTime();

    final boolean quick;
    final long dataBytes;
    final int segmentBytes;
    final long baselineMs;
    final long settleMs;

    CompactionBenchmark(boolean quick) {
        this.quick = quick;
        this.dataBytes = quick ? 128L << 20 : 1L << 30;
        this.segmentBytes = quick ? 8 << 20 : 64 << 20;
        this.baselineMs = quick ? 8_000 : 15_000;
        this.settleMs = quick ? 3_000 : 5_000;
    }

    public static void main(String[] args) throws Exception {
        boolean quick = false;
        Path dir = Path.of("bench/target");
        Path jsonDir = Path.of("bench/target");
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--quick" -> quick = true;
                case "--dir" -> dir = Path.of(args[++i]);
                case "--json-dir" -> jsonDir = Path.of(args[++i]);
                default -> throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        String stamp = LocalDateTime.now(ZoneOffset.UTC).format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss"));
        Files.createDirectories(dir);
        Path work = Files.createTempDirectory(dir.toAbsolutePath(), "compaction-bench-");
        CompactionBenchmark bench = new CompactionBenchmark(quick);
        CompactionReport report = new CompactionReport(bench, stamp, System.getenv().getOrDefault("ALOFT_GIT_REV",
                "unknown"), work);
        try {
            try (Target kafka = Target.kafka(work.resolve("kafka"))) {
                report.kafka = bench.run(kafka);
            }
            try (Target aloft = Target.aloft(Files.createDirectories(work.resolve("aloft")))) {
                report.aloft = bench.run(aloft);
            }
        } finally {
            deleteTree(work);
        }
        report.elapsedSeconds = (System.nanoTime() - START) / 1e9;
        report.loadAtEnd = io.aloft.bench.cluster.Machine.loadAverage();
        String markdown = report.markdown();
        System.out.print(markdown);
        Files.createDirectories(jsonDir);
        Files.writeString(jsonDir.resolve("compaction-bench-" + stamp + ".md"), markdown);
        Files.writeString(jsonDir.resolve("compaction-bench-" + stamp + ".json"), report.json());
        progress("done in %.0f s; results in %s", report.elapsedSeconds, jsonDir.toAbsolutePath()
                .resolve("compaction-bench-" + stamp + ".json"));
        System.exit(0); // broker and client threads must not keep the JVM up
    }

    /** What one system did. */
    static final class Result {
        String name;
        String description;
        long records;
        long keys;
        double loadSeconds;
        long sizeBefore;
        long sizeAfter;
        double compactionSeconds;
        Histogram baseline;
        Histogram during;
        long probeErrors;
        // Aloft only (-1 otherwise).
        long objectBytesRead = -1;
        long objectBytesWritten = -1;
        long cleanerInputBytes = -1;
        long cleanerOutputBytes = -1;
        long keyMapBytes = -1;
        long heapRise = -1;
        long cleanings = -1;

        double throughputMBps() {
            return sizeBefore / MB / compactionSeconds;
        }
    }

    Result run(Target target) throws Exception {
        Result r = new Result();
        r.name = target.name();
        r.description = target.description();
        progress("%s: started", r.name);
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, target.bootstrap()))) {
            int brokerId = admin.describeCluster().nodes().get(60, TimeUnit.SECONDS).iterator().next().id();
            admin.createTopics(List.of(new NewTopic(TOPIC, 1, (short) 1).configs(Map.of("cleanup.policy", "delete",
                    "segment.bytes", Integer.toString(segmentBytes), "segment.ms", "2000", "retention.ms", "-1")),
                    new NewTopic(PROBE_TOPIC, 4, (short) 1))).all().get(60, TimeUnit.SECONDS);
            load(target.bootstrap(), r);
            try (LatencyProbe probe = new LatencyProbe(target.bootstrap(), PROBE_TOPIC, 4, PROBE_RATE).start()) {
                HeapSampler heap = new HeapSampler().start();
                pause(baselineMs); // baseline: the probe alone (and Aloft's last upload of the loaded data)
                produceOne(target.bootstrap(), "roll"); // Kafka rolls its active segment: all of it is cleanable
                pause(500);
                probe.phase(); // what came before the baseline window's end is dropped
                heap.phase();
                pause(baselineMs);
                r.baseline = probe.phase();
                long heapBaseline = heap.phase();
                r.sizeBefore = partitionBytes(admin, brokerId);
                ObjectStorageStats storage = target.aloft() == null ? null : target.aloft().objectStorageStats();
                long readBefore = storage == null ? 0 : storage.bytes(ObjectStorageStats.Operation.GET);
                long writtenBefore = storage == null ? 0 : written(storage);
                progress("%s: %.0f MiB in the partition; switching it to cleanup.policy=compact", r.name,
                        r.sizeBefore / 1048576.0);
                long switched = System.nanoTime();
                ConfigResource topic = new ConfigResource(ConfigResource.Type.TOPIC, TOPIC);
                admin.incrementalAlterConfigs(Map.of(topic, List.of(new AlterConfigOp(new ConfigEntry(
                        "cleanup.policy", "compact"), AlterConfigOp.OpType.SET)))).all().get(60, TimeUnit.SECONDS);
                long done = awaitCompacted(admin, brokerId, r);
                r.compactionSeconds = (done - switched) / 1e9;
                r.during = probe.phase();
                long heapDuring = heap.phase();
                heap.close();
                r.probeErrors = probe.errors();
                if (storage != null) {
                    r.objectBytesRead = storage.bytes(ObjectStorageStats.Operation.GET) - readBefore;
                    r.objectBytesWritten = written(storage) - writtenBefore;
                    CleanerStats cleaner = target.aloft().logCleaner().stats();
                    r.cleanerInputBytes = cleaner.bytesBefore();
                    r.cleanerOutputBytes = cleaner.bytesAfter();
                    r.keyMapBytes = cleaner.mapBytes();
                    r.cleanings = cleaner.cleanings();
                    r.heapRise = Math.max(0, heapDuring - heapBaseline);
                }
            }
        }
        progress("%s: compacted %.0f -> %.1f MiB in %.1f s (%.1f MB/s of input)", r.name, r.sizeBefore / 1048576.0,
                r.sizeAfter / 1048576.0, r.compactionSeconds, r.throughputMBps());
        return r;
    }

    private static long written(ObjectStorageStats s) {
        return s.bytes(ObjectStorageStats.Operation.PUT) + s.bytes(ObjectStorageStats.Operation.MULTIPART_PART);
    }

    /** Loads the topic with {@link #dataBytes} of records, keys from a tenth as many. */
    private void load(String bootstrap, Result r) throws Exception {
        r.records = dataBytes / (VALUE_BYTES + 12);
        r.keys = r.records / 10;
        Properties p = producerProps(bootstrap);
        p.put(ProducerConfig.LINGER_MS_CONFIG, "20");
        p.put(ProducerConfig.BATCH_SIZE_CONFIG, Integer.toString(256 * 1024));
        p.put(ProducerConfig.BUFFER_MEMORY_CONFIG, Long.toString(64L << 20));
        Random random = new Random(42);
        byte[] value = new byte[VALUE_BYTES];
        AtomicLong failed = new AtomicLong();
        long started = System.nanoTime();
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p)) {
            for (long i = 0; i < r.records; i++) {
                random.nextBytes(value);
                byte[] key = String.format("key-%08d", random.nextInt((int) r.keys)).getBytes();
                producer.send(new ProducerRecord<>(TOPIC, 0, key, value.clone()), (md, e) -> {
                    if (e != null) {
                        failed.incrementAndGet();
                    }
                });
            }
            producer.flush();
        }
        if (failed.get() > 0) {
            throw new IllegalStateException(failed.get() + " records failed to load");
        }
        r.loadSeconds = (System.nanoTime() - started) / 1e9;
        progress("%s: loaded %d records (%d keys) in %.1f s", r.name, r.records, r.keys, r.loadSeconds);
    }

    private static Properties producerProps(String bootstrap) {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        return p;
    }

    private static void produceOne(String bootstrap, String key) throws Exception {
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(producerProps(bootstrap))) {
            producer.send(new ProducerRecord<>(TOPIC, 0, key.getBytes(), new byte[VALUE_BYTES])).get(60,
                    TimeUnit.SECONDS);
        }
    }

    /**
     * Polls the partition's size until it is below half of what it was and has not fallen for
     * {@link #settleMs}; returns when it last fell.
     */
    private long awaitCompacted(Admin admin, int brokerId, Result r) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(15);
        long last = r.sizeBefore;
        long lastFall = System.nanoTime();
        while (true) {
            long size = partitionBytes(admin, brokerId);
            long now = System.nanoTime();
            if (size < last) {
                last = size;
                lastFall = now;
            }
            if (last < r.sizeBefore / 2 && now - lastFall > TimeUnit.MILLISECONDS.toNanos(settleMs)) {
                r.sizeAfter = last;
                return lastFall;
            }
            if (now > deadline) {
                throw new IllegalStateException(r.name + ": not compacted within 15 minutes (size " + size + ")");
            }
            pause(100);
        }
    }

    private static long partitionBytes(Admin admin, int brokerId) throws Exception {
        Map<String, LogDirDescription> dirs = admin.describeLogDirs(List.of(brokerId)).allDescriptions()
                .get(60, TimeUnit.SECONDS).get(brokerId);
        long bytes = 0;
        for (LogDirDescription d : dirs.values()) {
            ReplicaInfo info = d.replicaInfos().get(new TopicPartition(TOPIC, 0));
            if (info != null) {
                bytes += info.size();
            }
        }
        return bytes;
    }

    /** Samples heap in use every 20 ms; each phase reports its largest sample. */
    private static final class HeapSampler implements AutoCloseable {
        private final MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
        private final AtomicLong peak = new AtomicLong();
        private final Thread thread = new Thread(this::run, "heap-sampler");
        private volatile boolean stopping;

        HeapSampler start() {
            thread.setDaemon(true);
            thread.start();
            return this;
        }

        long phase() {
            return peak.getAndSet(0);
        }

        private void run() {
            while (!stopping) {
                peak.accumulateAndGet(memory.getHeapMemoryUsage().getUsed(), Math::max);
                pause(20);
            }
        }

        @Override
        public void close() throws InterruptedException {
            stopping = true;
            thread.join();
        }
    }

    static void pause(long ms) {
        try {
            Thread.sleep(ms); // a benchmark's measured windows, not a test's wait
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    static void progress(String format, Object... args) {
        System.err.printf("[%6.1f s] %s%n", (System.nanoTime() - START) / 1e9, String.format(format, args));
    }

    private static void deleteTree(Path dir) {
        try (var walk = Files.walk(dir)) {
            walk.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (Exception e) {
            progress("could not delete %s: %s", dir, e);
        }
    }

}

package io.aloft.broker.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.aloft.broker.TestBroker;
import io.aloft.broker.log.PartitionLog;
import io.aloft.metrics.Http;
import io.aloft.metrics.PromTool;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The storage meters of a real broker move by what real produce traffic did to its WAL and object storage. */
class StorageMetersTest {

    private static final int BATCHES = 5;
    private static final int RECORD_BYTES = 1000;

    @TempDir
    static Path dir;
    static TestBroker broker;

    @BeforeAll
    static void start() throws Exception {
        // A short upload interval: the produced data reaches object storage within a second.
        broker = new TestBroker(dir, Map.of("metrics.listener", "http://127.0.0.1:0",
                "s3.wal.upload.interval.ms", "300", "s3.compaction.interval.ms", "500"));
    }

    @AfterAll
    static void stop() {
        if (broker != null) {
            broker.close();
        }
    }

    @Test
    void produceThenUpload_movesWalStoreAndObjectStorageMeters_andCostIsRequestsTimesPrice() throws Exception {
        try (Admin admin = Admin.create(broker.clientProps())) {
            admin.createTopics(List.of(new NewTopic("meters", 1, (short) 1))).all().get(30, TimeUnit.SECONDS);
        }
        Properties p = broker.clientProps();
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.LINGER_MS_CONFIG, "0");
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p, new ByteArraySerializer(),
                new ByteArraySerializer())) {
            producer.send(new ProducerRecord<>("meters", new byte[1])).get(30, TimeUnit.SECONDS); // opens the partition
            waitFor(m -> value(m, "aloft_stream_log_cache_unuploaded_bytes") == 0, "the first record uploaded");
            Map<String, Double> before = scrape();
            for (int i = 0; i < BATCHES; i++) {
                // One send at a time, each waited for: one batch, one produce request, one WAL append each.
                producer.send(new ProducerRecord<>("meters", new byte[RECORD_BYTES])).get(30, TimeUnit.SECONDS);
            }
            Map<String, Double> produced = scrape();
            assertEquals(BATCHES, delta(before, produced, "aloft_wal_appends_total"), "one WAL append per batch");
            assertEquals(BATCHES, delta(before, produced, "aloft_wal_append_latency_seconds_count"),
                    "each append's latency is recorded once it is durable");
            assertTrue(delta(before, produced, "aloft_wal_append_bytes_total") >= BATCHES * RECORD_BYTES);
            assertTrue(delta(before, produced, "aloft_wal_writes_total") >= 1);
            assertTrue(delta(before, produced, "aloft_stream_log_cache_bytes") >= BATCHES * RECORD_BYTES,
                    "the batches are in the log cache");

            Map<String, Double> uploaded = waitFor(m -> value(m, "aloft_stream_log_cache_unuploaded_bytes") == 0
                    && delta(before, m, "aloft_stream_uploads_total") >= 1, "the batches uploaded");
            assertTrue(delta(before, uploaded, "aloft_stream_upload_bytes_total") >= BATCHES * RECORD_BYTES);
            assertEquals(delta(before, uploaded, "aloft_stream_uploads_total"),
                    delta(before, uploaded, "aloft_stream_upload_latency_seconds_count"));
            assertEquals(delta(before, uploaded, "aloft_stream_uploads_total"),
                    delta(before, uploaded, "aloft_stream_object_size_bytes_count"));
            assertTrue(delta(before, uploaded, data("aloft_object_storage_requests_total", "PUT")) >= 1,
                    "the upload is a PUT");
            assertTrue(value(uploaded, "aloft_partition_open_latency_seconds_count") >= 1);
            assertEquals(PartitionLog.STREAMS_PER_PARTITION, value(uploaded, "aloft_stream_open_streams"),
                    "the topic's partition, and no other, is open");
        }
        // The cost counter is what the request counters it is computed from say, at the default prices.
        Map<String, Double> m = scrape();
        double expected = 0;
        for (String op : List.of("PUT", "LIST", "MULTIPART_CREATE", "MULTIPART_PART", "MULTIPART_COMPLETE")) {
            expected += value(m, data("aloft_object_storage_requests_total", op)) * 0.005 / 1000;
        }
        for (String op : List.of("GET", "HEAD")) {
            expected += value(m, data("aloft_object_storage_requests_total", op)) * 0.0004 / 1000;
        }
        assertTrue(expected > 0);
        assertEquals(expected, value(m, "aloft_object_storage_cost_usd_total{kind=\"requests\",store=\"data\"}"),
                1e-12);
        assertFalse(m.containsKey("aloft_object_storage_cost_usd_total{kind=\"requests\",store=\"wal\"}"),
                "a block WAL has no object storage");

        // Compaction's rounds list the objects: stored bytes and the storage cost rate follow. The
        // round in progress now may have listed before the upload's commit: wait for the one after.
        double rounds = value(m, "aloft_stream_compaction_rounds_total");
        Map<String, Double> listed = waitFor(s -> value(s, "aloft_stream_compaction_rounds_total") >= rounds + 2,
                "two more compaction rounds");
        assertTrue(value(listed, "aloft_stream_objects") >= 1);
        double stored = value(listed, "aloft_object_storage_stored_bytes{store=\"data\"}");
        assertTrue(stored >= BATCHES * RECORD_BYTES, "stored " + stored);
        assertEquals(stored / (1L << 30) * 0.023,
                value(listed, "aloft_object_storage_cost_usd_per_month{kind=\"storage\",store=\"data\"}"), 1e-15);
    }

    @Test
    void wholeExposition_passesPromtool() throws Exception {
        HttpResponse<String> r = Http.get(broker.broker().metrics().port().getAsInt(), "/metrics");
        assertEquals(200, r.statusCode());
        assertTrue(r.body().contains("aloft_wal_append_latency_seconds_bucket"), "the WAL histogram is served");
        assertTrue(r.body().contains("aloft_object_storage_requests_total{operation=\"PUT\",store=\"data\"}"));
        PromTool.Result check = PromTool.checkMetrics(r.body());
        assertEquals(0, check.exitCode(), check.output());
    }

    @Test
    void everyMeterTheReadmeLists_isExposed() throws Exception {
        String readme = Files.readString(Path.of(System.getProperty("aloft.project.root", "..")).resolve("README.md"));
        String table = readme.substring(readme.indexOf("##### Storage meters"), readme.indexOf("#### Tests (broker)"));
        Set<String> exposed = new HashSet<>();
        for (String series : scrape().keySet()) {
            exposed.add(series.replaceFirst("\\{.*", ""));
        }
        List<String> missing = new ArrayList<>();
        int rows = 0;
        for (String line : table.split("\n")) {
            if (!line.startsWith("| `aloft_")) {
                continue;
            }
            rows++;
            String[] cells = line.split("\\|");
            String name = cells[1].trim().replace("`", "");
            String type = cells[2].trim();
            if (type.contains("S3 backend only")) {
                continue; // this broker's object storage is file://
            }
            String sample = type.startsWith("histogram") ? name + "_bucket"
                    : type.startsWith("summary") ? name + "_count" : name;
            if (!exposed.contains(sample)) {
                missing.add(name + " (" + type + ")");
            }
        }
        assertTrue(rows >= 50, "the table has " + rows + " rows");
        assertTrue(missing.isEmpty(), "listed in the README, not exposed: " + missing);
    }

    private static String data(String name, String operation) {
        return name + "{operation=\"" + operation + "\",store=\"data\"}";
    }

    private static double delta(Map<String, Double> before, Map<String, Double> after, String series) {
        return value(after, series) - value(before, series);
    }

    private static double value(Map<String, Double> m, String series) {
        Double v = m.get(series);
        if (v == null) {
            throw new AssertionError(series + " is not exposed; have " + m.keySet().stream()
                    .filter(k -> k.startsWith(series.substring(0, Math.min(series.length(), 12)))).toList());
        }
        return v;
    }

    private static Map<String, Double> waitFor(Predicate<Map<String, Double>> condition, String what)
            throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (true) {
            Map<String, Double> m = scrape();
            if (condition.test(m)) {
                return m;
            }
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting for " + what);
            }
            Thread.sleep(50);
        }
    }

    /** The broker's exposition as series (name with labels, as printed) to value. */
    private static Map<String, Double> scrape() {
        Map<String, Double> series = new HashMap<>();
        for (String line : broker.broker().metrics().metrics().scrape().split("\n")) {
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            int space = line.lastIndexOf(' ');
            series.put(line.substring(0, space), Double.parseDouble(line.substring(space + 1)));
        }
        return series;
    }
}

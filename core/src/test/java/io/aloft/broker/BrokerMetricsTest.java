package io.aloft.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.aloft.broker.metrics.BrokerTopicMetrics;
import io.aloft.metrics.Http;
import io.aloft.metrics.PromTool;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.common.requests.ProduceRequest;
import org.apache.kafka.common.requests.ProduceResponse;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The broker's request, connection, topic, partition and group-lag meters, moved by real clients
 * and read from the broker's own /metrics over HTTP; the whole exposition passes promtool.
 */
class BrokerMetricsTest {
    private static final String TOPIC = "metered";
    private static final int RECORDS = 10;

    @TempDir
    static Path dir;
    private static TestBroker broker;
    private static Admin admin;

    @BeforeAll
    static void start() throws Exception {
        broker = new TestBroker(dir, Map.of("metrics.listener", "http://127.0.0.1:0",
                "auto.create.topics.enable", "false", "aloft.metrics.partition.series.enable", "true"));
        admin = Admin.create(broker.clientProps());
        admin.createTopics(List.of(new NewTopic(TOPIC, 1, (short) 1))).all().get(30, TimeUnit.SECONDS);
    }

    @AfterAll
    static void stop() {
        if (admin != null) {
            admin.close();
        }
        if (broker != null) {
            broker.close();
        }
    }

    @Test
    void produceAndConsume_moveTopicRequestConnectionAndLagMeters() throws Exception {
        Scrape before = scrape();
        long batchBytes;
        Properties pp = broker.clientProps();
        pp.put(ProducerConfig.LINGER_MS_CONFIG, "60000"); // one batch, sent by flush()
        pp.put(ProducerConfig.BATCH_SIZE_CONFIG, "1048576");
        pp.put(ProducerConfig.ACKS_CONFIG, "all");
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(pp, new ByteArraySerializer(),
                new ByteArraySerializer())) {
            List<Future<?>> sent = new ArrayList<>();
            for (int i = 0; i < RECORDS; i++) {
                sent.add(producer.send(new ProducerRecord<>(TOPIC, 0, null, ("value-" + i).repeat(10)
                        .getBytes(StandardCharsets.UTF_8))));
            }
            producer.flush();
            for (Future<?> f : sent) {
                f.get(30, TimeUnit.SECONDS);
            }
            // The producer's own account of the one batch it sent: its bytes, as Kafka's BytesIn counts them.
            batchBytes = (long) producerMetric(producer, "batch-size-max");
            assertEquals(batchBytes, (long) producerMetric(producer, "batch-size-avg"), "one batch was sent");
        }
        Scrape produced = scrape();
        assertEquals(batchBytes, produced.delta(before, "kafka_server_brokertopicmetrics_bytesin_total", "topic", TOPIC));
        assertEquals(batchBytes, produced.delta(before, "kafka_server_brokertopicmetrics_bytesin_total", "topic", ""));
        assertEquals(RECORDS, produced.delta(before, "kafka_server_brokertopicmetrics_messagesin_total", "topic",
                TOPIC));
        assertEquals(RECORDS, produced.delta(before, "kafka_server_brokertopicmetrics_messagesin_total", "topic", ""));
        assertEquals(1, produced.delta(before, "kafka_server_brokertopicmetrics_totalproducerequests_total", "topic",
                TOPIC));
        assertEquals(0, produced.delta(before, "kafka_server_brokertopicmetrics_failedproducerequests_total",
                "topic", TOPIC));
        assertEquals(0, produced.delta(before, "kafka_server_brokertopicmetrics_producemessageconversions_total"));
        long produceRequests = produced.delta(before, "kafka_network_requestmetrics_requests_total", "request",
                "Produce");
        assertTrue(produceRequests >= 1, "Produce requests counted: " + produceRequests);
        // One count behind the series and the broker's own count of the versions clients speak.
        for (short v = 0; v <= ApiKeys.PRODUCE.latestVersion(true); v++) {
            assertEquals(broker.broker().requestsDispatched(ApiKeys.PRODUCE, v), produced.sum(
                    "kafka_network_requestmetrics_requests_total", "request", "Produce", "version", Short.toString(v)),
                    "Produce v" + v);
        }
        assertEquals(produceRequests, produced.delta(before, "kafka_network_requestmetrics_errors_total",
                "request", "Produce", "error", "NONE"), "one partition each, each answered NONE");
        assertEquals(produceRequests, produced.delta(before, "kafka_network_requestmetrics_totaltime_seconds_count",
                "request", "Produce"));
        assertEquals(produceRequests, produced.delta(before,
                "kafka_network_requestmetrics_responsesendtime_seconds_count", "request", "Produce"));
        assertEquals(produceRequests, produced.delta(before, "kafka_network_requestmetrics_localtime_seconds_count",
                "request", "Produce"));
        assertEquals(RECORDS, produced.sum("kafka_log_log_logendoffset", "topic", TOPIC, "partition", "0"));

        // A consumer reads the batch and commits 4 of its 10 records: the group lags by 6.
        Properties cp = broker.clientProps();
        cp.put(ConsumerConfig.GROUP_ID_CONFIG, "metered-group");
        cp.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        cp.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "4");
        TopicPartition tp = new TopicPartition(TOPIC, 0);
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(cp, new ByteArrayDeserializer(),
                new ByteArrayDeserializer())) {
            consumer.assign(List.of(tp));
            consumer.seekToBeginning(List.of(tp));
            List<ConsumerRecord<byte[], byte[]>> got = new ArrayList<>();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (got.isEmpty() && System.nanoTime() < deadline) {
                consumer.poll(Duration.ofMillis(200)).forEach(got::add);
            }
            assertEquals(4, got.size(), "max.poll.records");
            consumer.commitSync(Map.of(tp, new OffsetAndMetadata(got.size())));
            Scrape consumed = scrape();
            assertTrue(consumed.sum("kafka_server_socketservermetrics_connections", "listener", "PLAINTEXT") >= 1,
                    "the consumer's connections are open");
            // The lag is refreshed in the background (every few seconds while scraped), not at the scrape.
            long lagDeadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (consumed.sum("aloft_group_lag_records", "group", "metered-group", "topic", TOPIC, "partition",
                    "0") != RECORDS - got.size() && System.nanoTime() < lagDeadline) {
                TimeUnit.MILLISECONDS.sleep(100);
                consumed = scrape();
            }
            assertEquals(RECORDS - got.size(), consumed.sum("aloft_group_lag_records", "group", "metered-group",
                    "topic", TOPIC, "partition", "0"));
            assertEquals(batchBytes, consumed.delta(produced, "kafka_server_brokertopicmetrics_bytesout_total",
                    "topic", TOPIC), "the batch went out once");
            assertTrue(consumed.delta(produced, "kafka_server_brokertopicmetrics_totalfetchrequests_total",
                    "topic", TOPIC) >= 1);
            assertTrue(consumed.delta(produced, "kafka_network_requestmetrics_requests_total", "request",
                    "Fetch") >= 1);
            assertTrue(consumed.delta(produced, "kafka_network_requestmetrics_requests_total", "request",
                    "OffsetCommit") >= 1);
            // The Java consumer fetches in an incremental session (KIP-227) holding its one partition.
            assertTrue(consumed.delta(produced, "aloft_fetch_sessions_opened_total") >= 1);
            assertTrue(consumed.sum("kafka_server_fetchsessioncache_numincrementalfetchsessions") >= 1);
            assertTrue(consumed.sum("kafka_server_fetchsessioncache_numincrementalfetchpartitionscached") >= 1);
        }
        Scrape after = scrape();
        assertTrue(after.delta(before, "kafka_server_socketservermetrics_connection_creation_total") >= 2);
        assertTrue(after.sum("kafka_server_replicamanager_leadercount") >= 1);
        assertEquals(1, after.sum("kafka_controller_kafkacontroller_activebrokercount"));
        assertEquals(0, after.sum("kafka_controller_kafkacontroller_offlinepartitionscount"));

        PromTool.Result check = PromTool.checkMetrics(after.text);
        assertEquals(0, check.exitCode(), check.output());
    }

    @Test
    void refusedProduces_countTheirErrors_andOnlyExistingTopicsGetSeries() throws Exception {
        admin.createTopics(List.of(new NewTopic("small", 1, (short) 1).configs(Map.of("max.message.bytes", "200"))))
                .all().get(30, TimeUnit.SECONDS);
        Scrape before = scrape();
        MemoryRecords tooLarge = records("x".repeat(1000));
        try (RawKafkaClient client = new RawKafkaClient(broker.bootstrap())) {
            assertEquals(Errors.UNKNOWN_TOPIC_OR_PARTITION.code(), produce(client, "no-such-topic", records("x")));
            assertEquals(Errors.MESSAGE_TOO_LARGE.code(), produce(client, "small", tooLarge));
        }
        Scrape after = scrape();
        assertEquals(1, after.delta(before, "kafka_network_requestmetrics_errors_total", "request", "Produce",
                "error", "UNKNOWN_TOPIC_OR_PARTITION"));
        assertEquals(1, after.delta(before, "kafka_network_requestmetrics_errors_total", "request", "Produce",
                "error", "MESSAGE_TOO_LARGE"));
        assertEquals(1, after.delta(before, "kafka_server_brokertopicmetrics_totalproducerequests_total",
                "topic", ""), "Kafka counts produce requests of known topics only");
        assertEquals(tooLarge.sizeInBytes(), after.delta(before, "kafka_server_brokertopicmetrics_bytesrejected_total",
                "topic", "small"));
        assertEquals(0, after.delta(before, "kafka_server_brokertopicmetrics_failedproducerequests_total",
                "topic", ""), "expected errors are not failed requests");
        assertEquals(0, after.delta(before, "kafka_server_brokertopicmetrics_bytesin_total", "topic", ""));
        assertFalse(after.text.contains("no-such-topic"), "no series for a topic that does not exist");

        // A deleted topic's series go with it.
        admin.deleteTopics(List.of("small")).all().get(30, TimeUnit.SECONDS);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (scrape().text.contains("topic=\"small\"") && System.nanoTime() < deadline) {
            Thread.onSpinWait();
        }
        assertFalse(scrape().text.contains("topic=\"small\""), "the deleted topic's series are removed");
    }

    private static MemoryRecords records(String value) {
        return MemoryRecords.withRecords(Compression.NONE,
                new SimpleRecord(System.currentTimeMillis(), null, value.getBytes(StandardCharsets.UTF_8)));
    }

    /** One acks=all Produce by topic name (v12) to partition 0; the partition's error code. */
    private static short produce(RawKafkaClient client, String topic, MemoryRecords records) throws Exception {
        ProduceRequestData data = new ProduceRequestData().setAcks((short) -1).setTimeoutMs(30_000);
        ProduceRequestData.TopicProduceDataCollection topics = new ProduceRequestData.TopicProduceDataCollection();
        topics.add(new ProduceRequestData.TopicProduceData().setName(topic).setPartitionData(List.of(
                new ProduceRequestData.PartitionProduceData().setIndex(0).setRecords(records))));
        data.setTopicData(topics);
        ProduceResponse response = client.send(ProduceRequest.builder(data).build((short) 12));
        return response.data().responses().iterator().next().partitionResponses().get(0).errorCode();
    }

    @Test
    void topicSeries_areCapped_andRemovedWithTheirTopic() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        Set<String> live = new java.util.HashSet<>(Set.of("a", "b", "c"));
        BrokerTopicMetrics metrics = new BrokerTopicMetrics(registry, 2, live::contains);
        for (String t : List.of("a", "b", "c")) {
            metrics.appended(t, 100, 1);
        }
        assertEquals(100, bytesIn(registry, "a"));
        assertEquals(100, bytesIn(registry, "b"));
        assertNull(registry.find("kafka.server.brokertopicmetrics.bytesin").tag("topic", "c").counter(),
                "over the cap: only in the total");
        assertEquals(300, bytesIn(registry, ""));
        live.remove("a");
        metrics.retainTopics(live);
        assertNull(registry.find("kafka.server.brokertopicmetrics.bytesin").tag("topic", "a").counter());
        metrics.appended("c", 50, 1);
        assertEquals(50, bytesIn(registry, "c"), "a deleted topic's place is free again");
    }

    private static double bytesIn(SimpleMeterRegistry registry, String topic) {
        return registry.get("kafka.server.brokertopicmetrics.bytesin").tag("topic", topic).counter().count();
    }

    private static double producerMetric(KafkaProducer<?, ?> producer, String name) {
        for (Map.Entry<MetricName, ? extends Metric> e : producer.metrics().entrySet()) {
            if (e.getKey().name().equals(name) && e.getKey().group().equals("producer-metrics")) {
                return ((Number) e.getValue().metricValue()).doubleValue();
            }
        }
        throw new AssertionError("no producer metric " + name);
    }

    private static Scrape scrape() throws Exception {
        var r = Http.get(broker.broker().metrics().port().getAsInt(), "/metrics");
        assertEquals(200, r.statusCode());
        return new Scrape(r.body());
    }

    /** A Prometheus text exposition, summed by name and label subset. */
    private record Scrape(String text) {
        private static final Pattern SAMPLE = Pattern.compile("^([a-zA-Z_:][a-zA-Z0-9_:]*)(\\{(.*)})? (\\S+)$");
        private static final Pattern LABEL = Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)=\"((?:[^\"\\\\]|\\\\.)*)\"");

        /** The sum of the samples named {@code name} whose labels include {@code labels} (name, value pairs). */
        long sum(String name, String... labels) {
            double total = 0;
            for (String line : text.split("\n")) {
                Matcher m = SAMPLE.matcher(line);
                if (line.startsWith("#") || !m.matches() || !m.group(1).equals(name)) {
                    continue;
                }
                Map<String, String> have = new java.util.HashMap<>();
                if (m.group(3) != null) {
                    Matcher l = LABEL.matcher(m.group(3));
                    while (l.find()) {
                        have.put(l.group(1), l.group(2));
                    }
                }
                boolean match = true;
                for (int i = 0; i < labels.length; i += 2) {
                    match &= labels[i + 1].equals(have.getOrDefault(labels[i], ""));
                }
                if (match) {
                    total += Double.parseDouble(m.group(4));
                }
            }
            return Math.round(total);
        }

        long delta(Scrape before, String name, String... labels) {
            return sum(name, labels) - before.sum(name, labels);
        }
    }
}

package io.aloft.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.aloft.metrics.Http;
import io.aloft.metrics.PromTool;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ExecutionException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The shipped Grafana dashboard (config/grafana) and Prometheus alerting rules (config/prometheus)
 * query only meters a broker really exposes — checked against a broker's /metrics after produce,
 * consume, a committed group and an error — and the rules pass {@code promtool check rules} and
 * their own {@code promtool test rules} cases.
 */
class DashboardAndAlertsTest {
    /** Meter names in PromQL: Aloft's, Kafka's and the JVM's namespaces (Prometheus' own, like up, are not ours). */
    private static final Pattern METER = Pattern.compile("\\b((?:kafka|aloft|jvm|process|system)_[a-zA-Z0-9_]+)");
    private static final Path ROOT = ConfigReferenceTest.projectRoot();

    @Test
    void everyQueriedMeter_isExposedByABroker(@TempDir Path dir) throws Exception {
        Set<String> exposed;
        try (TestBroker broker = new TestBroker(dir, Map.of("metrics.listener", "http://127.0.0.1:0"))) {
            traffic(broker);
            System.gc(); // the GC pause timer appears with the first collection
            int port = broker.broker().metrics().port().getAsInt();
            exposed = sampleNames(Http.get(port, "/metrics").body());
            // The group lag is refreshed in the background (every few seconds while scraped), not at the scrape.
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (!exposed.contains("aloft_group_lag_records") && System.nanoTime() < deadline) {
                Thread.sleep(100);
                exposed = sampleNames(Http.get(port, "/metrics").body());
            }
        }
        for (String file : List.of("config/grafana/aloft-dashboard.json", "config/prometheus/aloft-alerts.yaml")) {
            Set<String> missing = new TreeSet<>();
            Matcher m = METER.matcher(Files.readString(ROOT.resolve(file), StandardCharsets.UTF_8));
            int queried = 0;
            while (m.find()) {
                queried++;
                if (!exposed.contains(m.group(1))) {
                    missing.add(m.group(1));
                }
            }
            assertTrue(queried > 5, file + " queries meters");
            assertTrue(missing.isEmpty(), file + " queries meters no broker exposes: " + missing);
        }
    }

    @Test
    void alertingRules_passPromtoolsChecksAndTheirTests() throws Exception {
        Path rules = ROOT.resolve("config/prometheus");
        assertEquals(0, promtool(rules, "check", "rules", "aloft-alerts.yaml"));
        assertEquals(0, promtool(rules, "test", "rules", "aloft-alerts.test.yaml"));
    }

    private static int promtool(Path dir, String... args) throws Exception {
        List<String> command = new java.util.ArrayList<>(List.of(PromTool.binary().toString()));
        command.addAll(List.of(args));
        Process p = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        int code = p.waitFor();
        if (code != 0) {
            System.err.println("promtool " + String.join(" ", args) + ":\n" + out);
        }
        return code;
    }

    /** Produce and consume with a committed group, and one refused request, so labelled meters appear. */
    private static void traffic(TestBroker broker) throws Exception {
        try (Admin admin = Admin.create(broker.clientProps())) {
            admin.createTopics(List.of(new NewTopic("dash", 1, (short) 1))).all().get();
            try {
                admin.deleteTopics(List.of("no-such-topic")).all().get(); // an UNKNOWN_TOPIC_OR_PARTITION answer
            } catch (ExecutionException expected) {
                // counted in kafka_network_requestmetrics_errors_total
            }
        }
        Properties pp = broker.clientProps();
        pp.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        pp.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(pp)) {
            for (int i = 0; i < 20; i++) {
                producer.send(new ProducerRecord<>("dash", "k" + i, "v" + i)).get();
            }
        }
        Properties cp = broker.clientProps();
        cp.put(ConsumerConfig.GROUP_ID_CONFIG, "dash-group");
        cp.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        cp.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "5");
        cp.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        cp.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(cp)) {
            consumer.subscribe(List.of("dash"));
            int read = 0;
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (read == 0 && System.nanoTime() < deadline) {
                read += consumer.poll(Duration.ofMillis(500)).count();
            }
            assertTrue(read > 0, "consumed");
            consumer.commitSync(); // the group lags by what it has not read
        }
    }

    private static Set<String> sampleNames(String exposition) {
        Set<String> names = new TreeSet<>();
        for (String line : exposition.split("\n")) {
            if (!line.isEmpty() && !line.startsWith("#")) {
                int end = line.indexOf('{');
                names.add(line.substring(0, end >= 0 ? end : line.indexOf(' ')));
            }
        }
        return names;
    }
}

package io.aloft.servers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/** What both server tests check: records go in and come back, and stop leaves nothing behind. */
public final class RoundTrip {
    private RoundTrip() {
    }

    /**
     * Starts {@code broker}, round-trips records through it, stops it and checks it left nothing
     * behind; returns the server.properties it ran with, for the caller's checks.
     */
    public static String startRoundTripAndStop(ChildBroker broker) throws Exception {
        Process process;
        Path dir;
        String bootstrap;
        String props;
        try {
            broker.start();
            process = broker.process();
            dir = broker.directory();
            bootstrap = broker.bootstrap();
            assertTrue(bootstrap.startsWith("127.0.0.1:"), bootstrap);
            props = java.nio.file.Files.readString(dir.resolve("attempt-1/server.properties"));
            produceAndConsume(bootstrap, 200);
        } finally {
            broker.stop();
        }
        assertStoppedClean(process, dir, bootstrap);
        return props;
    }

    /** Creates a topic, produces {@code count} records with acks=all, and reads them back in order. */
    public static void produceAndConsume(String bootstrap, int count) throws Exception {
        String topic = "round-trip";
        Properties admin = new Properties();
        admin.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        try (Admin a = Admin.create(admin)) {
            a.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get(30, TimeUnit.SECONDS);
        }
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        try (KafkaProducer<String, String> producer =
                     new KafkaProducer<>(p, new StringSerializer(), new StringSerializer())) {
            for (int i = 0; i < count; i++) {
                producer.send(new ProducerRecord<>(topic, "k" + i, "value-" + i));
            }
            producer.flush();
        }
        Properties c = new Properties();
        c.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        c.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        List<String> values = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer =
                     new KafkaConsumer<>(c, new StringDeserializer(), new StringDeserializer())) {
            TopicPartition tp = new TopicPartition(topic, 0);
            consumer.assign(List.of(tp));
            consumer.seekToBeginning(List.of(tp));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (values.size() < count && System.nanoTime() < deadline) {
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(500))) {
                    values.add(r.value());
                }
            }
        }
        assertEquals(count, values.size(), "records read back");
        for (int i = 0; i < count; i++) {
            assertEquals("value-" + i, values.get(i));
        }
    }

    /** After stop: the process is gone, its port can be bound again, and its directory is deleted. */
    public static void assertStoppedClean(Process process, Path dir, String bootstrap) throws IOException {
        assertFalse(process.isAlive(), "child process " + process.pid() + " still alive");
        assertTrue(process.descendants().findAny().isEmpty(), "child left descendants");
        int port = Integer.parseInt(bootstrap.substring(bootstrap.lastIndexOf(':') + 1));
        try (ServerSocket socket = new ServerSocket()) {
            socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
        }
        assertFalse(Files.exists(dir), "temp dir " + dir + " still exists");
    }

    public static Path scratch() {
        return Path.of("target", "omb-server-test").toAbsolutePath();
    }
}

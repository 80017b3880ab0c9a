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
    private static final String TOPIC = "round-trip";

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

    /**
     * Starts {@code broker}, writes records, restarts it, and checks that the new process serves the
     * same address with every record still there; then stops it and checks it left nothing behind.
     */
    public static void startWriteRestartAndRead(ChildBroker broker) throws Exception {
        Process first;
        Process second;
        Path dir;
        String bootstrap;
        try {
            broker.start();
            first = broker.process();
            dir = broker.directory();
            bootstrap = broker.bootstrap();
            produceAndConsume(bootstrap, 100);
            broker.restart();
            second = broker.process();
            assertFalse(first.isAlive(), "the first process " + first.pid() + " outlived the restart");
            assertTrue(second.isAlive() && second.pid() != first.pid(), "no new process after the restart");
            assertEquals(bootstrap, broker.bootstrap(), "address after the restart");
            assertEquals(dir, broker.directory(), "directory after the restart");
            assertReadsBack(bootstrap, 100);
        } finally {
            broker.stop();
        }
        assertStoppedClean(second, dir, bootstrap);
    }

    /** Creates a topic, produces {@code count} records with acks=all, and reads them back in order. */
    public static void produceAndConsume(String bootstrap, int count) throws Exception {
        Properties admin = new Properties();
        admin.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        try (Admin a = Admin.create(admin)) {
            a.createTopics(List.of(new NewTopic(TOPIC, 1, (short) 1))).all().get(30, TimeUnit.SECONDS);
        }
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        try (KafkaProducer<String, String> producer =
                     new KafkaProducer<>(p, new StringSerializer(), new StringSerializer())) {
            for (int i = 0; i < count; i++) {
                producer.send(new ProducerRecord<>(TOPIC, "k" + i, "value-" + i));
            }
            producer.flush();
        }
        assertReadsBack(bootstrap, count);
    }

    /**
     * Reads the topic {@link #produceAndConsume} wrote from its beginning and checks it holds exactly
     * those {@code count} records, in order (after a restart, for example).
     */
    public static void assertReadsBack(String bootstrap, int count) {
        Properties c = new Properties();
        c.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        c.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        List<String> values = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer =
                     new KafkaConsumer<>(c, new StringDeserializer(), new StringDeserializer())) {
            TopicPartition tp = new TopicPartition(TOPIC, 0);
            consumer.assign(List.of(tp));
            consumer.seekToBeginning(List.of(tp));
            long end = consumer.endOffsets(List.of(tp), Duration.ofSeconds(30)).get(tp);
            assertEquals(count, end, "end offset of " + TOPIC);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (consumer.position(tp) < end && System.nanoTime() < deadline) {
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

package io.aloft.omb.runner;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.aloft.omb.workload.DriverConfig;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import org.apache.kafka.clients.consumer.AcknowledgeType;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.MockShareConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.record.TimestampType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The share consumer's acknowledgements and counts, on kafka-clients' MockShareConsumer: which
 * records it releases, how redeliveries are matched to releases, what counts as consumed.
 */
@Timeout(30)
class ShareConsumerWorkerTest {
    private static final String TOPIC = "t";
    private static final DriverConfig.ShareGroups ONE_PERCENT = new DriverConfig.ShareGroups(true, 0.01,
            new Properties());

    /** Records every acknowledgement as "offset:TYPE". */
    private static final class RecordingShareConsumer extends MockShareConsumer<byte[], byte[]> {
        final List<String> acks = new ArrayList<>();

        @Override
        public synchronized void acknowledge(ConsumerRecord<byte[], byte[]> record, AcknowledgeType type) {
            acks.add(record.offset() + ":" + type.name());
        }
    }

    private final RunStats stats = new RunStats();
    private final RedeliveryTracker tracker = new RedeliveryTracker();
    private final RecordingShareConsumer consumer = new RecordingShareConsumer();
    private final ShareConsumerWorker worker = new ShareConsumerWorker(consumer, List.of(TOPIC), ONE_PERCENT, tracker,
            stats);

    private static ConsumerRecord<byte[], byte[]> record(long offset, int deliveries, long timestamp) {
        return new ConsumerRecord<>(TOPIC, 0, offset, timestamp, TimestampType.CREATE_TIME, 0, 10, null,
                new byte[10], new RecordHeaders(), Optional.empty(), Optional.of((short) deliveries));
    }

    private static ConsumerRecords<byte[], byte[]> records(List<ConsumerRecord<byte[], byte[]>> list) {
        return new ConsumerRecords<>(Map.of(new TopicPartition(TOPIC, 0), list), Map.of());
    }

    @Test
    void handle_firstDeliveries_acceptedExceptTheChosenOffsetsWhichAreReleased() {
        List<ConsumerRecord<byte[], byte[]>> batch = new ArrayList<>();
        for (long o = 95; o < 105; o++) {
            batch.add(record(o, 1, 1_000));
        }
        Window w = stats.open();
        worker.handle(records(batch), 1_007);
        stats.close(w);

        assertEquals("99:RELEASE", consumer.acks.get(4));
        assertEquals(10, consumer.acks.size(), "every record acknowledged before the next poll");
        assertEquals(9, consumer.acks.stream().filter(a -> a.endsWith(":ACCEPT")).count());
        assertEquals(9, w.receivedMsgs, "a released record is not consumed yet");
        assertEquals(90, w.receivedBytes);
        assertEquals(1, w.releasedMsgs);
        assertEquals(7.0, w.e2eMs(50), "poll time minus the record's timestamp");
        assertEquals(1, tracker.pending());
    }

    @Test
    void handle_releasedRecordArrivesAgain_acceptedCountedOnceWithItsRedeliveryLatency() {
        Window w = stats.open();
        worker.handle(records(List.of(record(99, 1, 1_000))), 1_001);
        worker.handle(records(List.of(record(99, 2, 1_000))), 1_500);
        stats.close(w);

        assertEquals(List.of("99:RELEASE", "99:ACCEPT"), consumer.acks);
        assertEquals(1, w.receivedMsgs, "consumed once, when accepted");
        assertEquals(1, w.redeliveredMsgs);
        assertEquals(0, w.otherRedeliveries);
        assertEquals(1, w.redeliveryLatencyMicros.getTotalCount());
        assertTrue(w.redeliveryMs(50) >= 0);
        assertEquals(0, w.e2eLatencyMillis.getTotalCount(),
                "end-to-end latency covers accepted first deliveries only");
        assertEquals(0, tracker.pending());
    }

    /** The group's other consumer may get the record back: the tracker is shared. */
    @Test
    void handle_redeliveredToAnotherConsumer_matchedToTheRelease() {
        RecordingShareConsumer other = new RecordingShareConsumer();
        ShareConsumerWorker second = new ShareConsumerWorker(other, List.of(TOPIC), ONE_PERCENT, tracker, stats);
        Window w = stats.open();
        worker.handle(records(List.of(record(199, 1, 1_000))), 1_001);
        second.handle(records(List.of(record(199, 2, 1_000))), 1_002);
        stats.close(w);
        assertEquals(List.of("199:RELEASE"), consumer.acks);
        assertEquals(List.of("199:ACCEPT"), other.acks);
        assertEquals(1, w.redeliveredMsgs);
        assertEquals(1, w.receivedMsgs);
    }

    /** A delivery count above 1 that nobody asked for (a lock timed out): accepted, counted apart. */
    @Test
    void handle_redeliveryWithoutRelease_acceptedAndCountedAsUnreleased() {
        Window w = stats.open();
        worker.handle(records(List.of(record(5, 2, 1_000), record(99, 3, 1_000))), 1_001);
        stats.close(w);
        assertEquals(List.of("5:ACCEPT", "99:ACCEPT"), consumer.acks, "never released twice");
        assertEquals(2, w.otherRedeliveries);
        assertEquals(0, w.redeliveredMsgs);
        assertEquals(0, w.releasedMsgs);
        assertEquals(2, w.receivedMsgs);
    }

    /** Without a delivery count (a broker that leaves it out) a record counts as a first delivery. */
    @Test
    void handle_noDeliveryCount_firstDelivery() {
        ConsumerRecord<byte[], byte[]> r = new ConsumerRecord<>(TOPIC, 0, 99, new byte[0], new byte[4]);
        worker.handle(records(List.of(r)), 0);
        assertEquals(List.of("99:RELEASE"), consumer.acks);
    }

    @Test
    void run_pollsUntilStoppedThenClosesTheClient() throws Exception {
        consumer.subscribe(List.of(TOPIC)); // the mock takes records for subscribed topics only
        consumer.addRecord(record(1, 1, System.currentTimeMillis()));
        consumer.addRecord(record(99, 1, System.currentTimeMillis()));
        Thread t = new Thread(worker, "test-share-consumer");
        t.start();
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while ((stats.totalReceived() < 1 || stats.totalReleased() < 1) && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        worker.stop();
        t.join(Duration.ofSeconds(20).toMillis());
        assertTrue(!t.isAlive(), "the loop ended");
        assertNull(worker.failure());
        assertEquals(1, stats.totalReceived());
        assertEquals(1, stats.totalReleased());
        assertThrows(IllegalStateException.class, consumer::subscription, "the worker closed its client");
    }
}

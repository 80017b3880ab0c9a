package io.aloft.omb.runner;

import io.aloft.omb.workload.DriverConfig;
import java.time.Duration;
import java.util.List;
import org.apache.kafka.clients.consumer.AcknowledgeType;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.ShareConsumer;
import org.apache.kafka.common.errors.WakeupException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One share consumer client (KIP-932) and its poll loop. {@link #run} is confined to the worker's
 * thread; {@link #stop} and {@link #failure} may be called from any thread.
 *
 * <p>Acknowledgement is explicit: every record of a poll is acknowledged before the next poll,
 * which carries the acknowledgements to the broker. On its first delivery a record is ACCEPTed,
 * unless {@link DriverConfig.ShareGroups#releases} picks its offset: then it is RELEASEd, so the
 * broker makes it available again at once, and the {@link RedeliveryTracker} notes when. A record
 * arriving with a delivery count above 1 is ACCEPTed; if it was released in this run, the time since
 * its release is the redelivery latency. RELEASE rather than letting the acquisition lock time out
 * (30 s by default) measures the broker's redelivery path itself, not the lock's duration.
 *
 * <p>Counting: a record counts as consumed once, when accepted; its end-to-end latency (poll time
 * minus the record's timestamp) is taken on its first delivery only.
 */
final class ShareConsumerWorker implements Runnable {
    private static final Logger log = LoggerFactory.getLogger(ShareConsumerWorker.class);
    private static final Duration POLL_TIMEOUT = Duration.ofMillis(100);

    private final ShareConsumer<byte[], byte[]> consumer;
    private final List<String> topics;
    private final DriverConfig.ShareGroups share;
    private final RedeliveryTracker tracker;
    private final RunStats stats;
    private volatile boolean stopped;
    private volatile Throwable failure;

    ShareConsumerWorker(ShareConsumer<byte[], byte[]> consumer, List<String> topics, DriverConfig.ShareGroups share,
            RedeliveryTracker tracker, RunStats stats) {
        this.consumer = consumer;
        this.topics = List.copyOf(topics);
        this.share = share;
        this.tracker = tracker;
        this.stats = stats;
    }

    @Override
    public void run() {
        try {
            consumer.subscribe(topics);
            while (!stopped) {
                ConsumerRecords<byte[], byte[]> records = consumer.poll(POLL_TIMEOUT);
                if (!records.isEmpty()) {
                    handle(records, System.currentTimeMillis());
                }
            }
        } catch (WakeupException e) {
            // stop() woke the poll up
        } catch (RuntimeException e) {
            failure = e;
            log.error("share consumer of {} failed; it stops consuming", topics.size() == 1 ? topics.get(0)
                    : topics.size() + " topics", e);
        } finally {
            // Sends the acknowledgements of the last poll, then leaves the group.
            consumer.close(Duration.ofSeconds(5));
        }
    }

    /** Acknowledges every record of one poll and records what it measured. Package-private for tests. */
    void handle(ConsumerRecords<byte[], byte[]> records, long nowMillis) {
        for (ConsumerRecord<byte[], byte[]> r : records) {
            int bytes = Math.max(0, r.serializedValueSize());
            int deliveries = r.deliveryCount().map(Short::intValue).orElse(1);
            if (deliveries <= 1) {
                if (share.releases(r.offset())) {
                    tracker.released(r.topic(), r.partition(), r.offset(), System.nanoTime());
                    consumer.acknowledge(r, AcknowledgeType.RELEASE);
                    stats.released();
                    continue;
                }
                consumer.acknowledge(r, AcknowledgeType.ACCEPT);
                stats.received(bytes, nowMillis - r.timestamp());
            } else {
                long nanos = tracker.redelivered(r.topic(), r.partition(), r.offset(), System.nanoTime());
                consumer.acknowledge(r, AcknowledgeType.ACCEPT);
                if (nanos >= 0) {
                    stats.redelivered(nanos / 1000);
                } else {
                    stats.redeliveredUnreleased();
                }
                stats.receivedAgain(bytes);
            }
        }
    }

    /** Why the poll loop ended early, or null. */
    Throwable failure() {
        return failure;
    }

    /** Ends the poll loop; the thread closes the client on its way out. Returns at once. */
    void stop() {
        stopped = true;
        consumer.wakeup();
    }
}

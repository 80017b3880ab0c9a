package io.aloft.omb.runner;

import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One consumer client and its poll loop. {@link #run} is confined to the worker's thread;
 * {@link #pause}, {@link #resume}, {@link #stop} and {@link #assignedPartitions} may be called
 * from any thread.
 *
 * <p>Pausing (for backlog mode) keeps the member in its group and keeps polling, so it neither
 * misses heartbeats nor exceeds {@code max.poll.interval.ms}; it only stops fetching, by pausing
 * every assigned partition (also partitions assigned later, in the rebalance listener). As OMB's
 * Kafka driver does, offsets are committed asynchronously after each non-empty poll when
 * {@code enable.auto.commit} is false.
 */
final class ConsumerWorker implements Runnable {
    private static final Logger log = LoggerFactory.getLogger(ConsumerWorker.class);
    private static final Duration POLL_TIMEOUT = Duration.ofMillis(100);

    private final KafkaConsumer<byte[], byte[]> consumer;
    private final List<String> topics;
    private final boolean commitAfterPoll;
    private final RunStats stats;
    private final AtomicInteger assigned = new AtomicInteger();
    private volatile boolean pauseRequested;
    private volatile boolean stopped;
    private volatile Throwable failure;

    ConsumerWorker(KafkaConsumer<byte[], byte[]> consumer, List<String> topics, boolean commitAfterPoll,
            RunStats stats) {
        this.consumer = consumer;
        this.topics = List.copyOf(topics);
        this.commitAfterPoll = commitAfterPoll;
        this.stats = stats;
    }

    @Override
    public void run() {
        boolean pausedNow = false;
        try {
            consumer.subscribe(topics, new Listener());
            while (!stopped) {
                boolean wantPaused = pauseRequested;
                if (wantPaused != pausedNow) {
                    if (wantPaused) {
                        consumer.pause(consumer.assignment());
                    } else {
                        consumer.resume(consumer.paused());
                    }
                    pausedNow = wantPaused;
                }
                ConsumerRecords<byte[], byte[]> records = consumer.poll(POLL_TIMEOUT);
                if (records.isEmpty()) {
                    continue;
                }
                long now = System.currentTimeMillis();
                for (ConsumerRecord<byte[], byte[]> r : records) {
                    stats.received(Math.max(0, r.serializedValueSize()), now - r.timestamp());
                }
                if (commitAfterPoll) {
                    consumer.commitAsync();
                }
            }
        } catch (WakeupException e) {
            // stop() woke the poll up
        } catch (RuntimeException e) {
            failure = e;
            log.error("consumer of {} failed; it stops consuming", topics.size() == 1 ? topics.get(0)
                    : topics.size() + " topics", e);
        } finally {
            consumer.close(Duration.ofSeconds(5));
        }
    }

    /** Why the poll loop ended early, or null. */
    Throwable failure() {
        return failure;
    }

    void pause() {
        pauseRequested = true;
    }

    void resume() {
        pauseRequested = false;
    }

    /** Ends the poll loop; the thread closes the client on its way out. Returns at once. */
    void stop() {
        stopped = true;
        consumer.wakeup();
    }

    int assignedPartitions() {
        return assigned.get();
    }

    /** Runs inside poll, on the worker's thread. */
    private final class Listener implements ConsumerRebalanceListener {
        @Override
        public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
            assigned.set(consumer.assignment().size() - partitions.size());
        }

        @Override
        public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
            if (pauseRequested) {
                consumer.pause(partitions);
            }
            assigned.set(consumer.assignment().size());
        }

        @Override
        public void onPartitionsLost(Collection<TopicPartition> partitions) {
            assigned.set(0);
        }
    }
}

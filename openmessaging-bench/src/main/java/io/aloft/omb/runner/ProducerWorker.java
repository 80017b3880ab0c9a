package io.aloft.omb.runner;

import java.time.Duration;
import java.util.List;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One producer client and the thread that paces its sends. {@link #run} is confined to that
 * thread; {@link #stop} may be called from any thread.
 *
 * <p>Publish latency is measured as OMB does: from just before the {@code send} call to the
 * acknowledgement callback, so time blocked in {@code send} (waiting for metadata or buffer
 * space) counts. The record timestamp is the wall clock at the send call (CreateTime), which
 * consumers subtract from their receive time for the end-to-end latency. How late each send call
 * was against the pacer's schedule is recorded separately as publish delay.
 */
final class ProducerWorker implements Runnable {
    private static final Logger log = LoggerFactory.getLogger(ProducerWorker.class);

    private final KafkaProducer<byte[], byte[]> producer;
    private final List<String> topics;
    private final byte[] payload;
    private final MessageRouter router;
    private final Pacer pacer;
    private final RunStats stats;
    private volatile boolean stopped;
    private int nextTopic;

    /**
     * @param topics the topic of each logical producer this client serves, sent to in turn
     * @param payload sent as every message's value; borrowed, never modified
     */
    ProducerWorker(KafkaProducer<byte[], byte[]> producer, List<String> topics, byte[] payload,
            MessageRouter router, double ratePerSecond, RunStats stats) {
        this.producer = producer;
        this.topics = List.copyOf(topics);
        this.payload = payload;
        this.router = router;
        this.stats = stats;
        this.pacer = new Pacer(ratePerSecond, System::nanoTime, () -> stopped);
    }

    @Override
    public void run() {
        try {
            while (!stopped) {
                long due = pacer.awaitNext();
                if (due < 0) {
                    break;
                }
                sendOne(due);
            }
        } catch (RuntimeException e) {
            // Not expected: send reports failures through the callback or KafkaException below.
            log.error("producer thread {} failed; it stops sending", Thread.currentThread().getName(), e);
            stats.sendFailed();
        }
    }

    private void sendOne(long dueNanos) {
        String topic = topics.get(nextTopic);
        nextTopic = (nextTopic + 1) % topics.size();
        ProducerRecord<byte[], byte[]> record = new ProducerRecord<>(topic, router.nextPartition(),
                System.currentTimeMillis(), router.nextKey(), payload);
        long sendNanos = System.nanoTime();
        if (pacer.limited()) {
            stats.sendDelay((sendNanos - dueNanos) / 1000);
        }
        int bytes = payload.length;
        try {
            producer.send(record, (metadata, exception) -> {
                if (exception == null) {
                    stats.sent(bytes, (System.nanoTime() - sendNanos) / 1000);
                } else {
                    stats.sendFailed();
                    log.debug("send to {} failed", topic, exception);
                }
            });
        } catch (KafkaException e) {
            // Raised by send itself, e.g. a metadata timeout or the client closing under it.
            stats.sendFailed();
            log.debug("send to {} failed", topic, e);
        }
    }

    /** Asks the thread to stop after its current send; returns at once. */
    void stop() {
        stopped = true;
    }

    /** Closes the client, waiting up to {@code timeout} for sends in flight; call after the thread ended. */
    void close(Duration timeout) {
        producer.close(timeout);
    }
}

package io.aloft.omb.runner;

import java.time.Duration;
import java.util.List;
import org.apache.kafka.clients.producer.ProducerRecord;
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
 * was against the pacer's schedule is recorded separately as publish delay. The {@link
 * MessageSender} decides whether records go one by one or in transactions; with transactions the
 * time a commit blocks this thread shows as publish delay of the sends after it.
 */
final class ProducerWorker implements Runnable {
    private static final Logger log = LoggerFactory.getLogger(ProducerWorker.class);

    private final MessageSender sender;
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
    ProducerWorker(MessageSender sender, List<String> topics, byte[] payload, MessageRouter router,
            double ratePerSecond, RunStats stats) {
        this.sender = sender;
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
            sender.finish();
        } catch (RuntimeException e) {
            // Not expected: senders count failures in the stats rather than throw.
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
        sender.send(record, payload.length, sendNanos);
    }

    /** Asks the thread to stop after its current send; returns at once. */
    void stop() {
        stopped = true;
    }

    /** Closes the client, waiting up to {@code timeout} for sends in flight; call after the thread ended. */
    void close(Duration timeout) {
        sender.close(timeout);
    }
}

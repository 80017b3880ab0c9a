package io.aloft.omb.runner;

import java.time.Duration;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * How a {@link ProducerWorker} hands its paced records to Kafka: one by one ({@link PlainSender}) or
 * grouped into transactions ({@link TransactionalSender}). Confined to the worker's thread, except
 * that the client's callbacks run on its I/O thread and only touch the thread-safe {@link RunStats}.
 */
interface MessageSender {
    /**
     * Sends {@code record}, whose value is {@code bytes} long; {@code sendNanos} is the
     * {@link System#nanoTime} the publish latency is measured from. Failures are counted in the
     * run's stats, never thrown.
     */
    void send(ProducerRecord<byte[], byte[]> record, int bytes, long sendNanos);

    /** The worker stopped sending: complete what is pending (commit an open transaction). */
    void finish();

    /** Closes the client, waiting up to {@code timeout} for sends in flight. */
    void close(Duration timeout);
}

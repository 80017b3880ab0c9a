package io.aloft.omb.runner;

import java.time.Duration;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * OMB's Kafka driver's way: every record sent on its own, published when acknowledged. Confined
 * to the worker's thread (see {@link MessageSender}).
 */
final class PlainSender implements MessageSender {
    private static final Logger log = LoggerFactory.getLogger(PlainSender.class);

    private final Producer<byte[], byte[]> producer;
    private final RunStats stats;

    PlainSender(Producer<byte[], byte[]> producer, RunStats stats) {
        this.producer = producer;
        this.stats = stats;
    }

    @Override
    public void send(ProducerRecord<byte[], byte[]> record, int bytes, long sendNanos) {
        try {
            producer.send(record, (metadata, exception) -> {
                if (exception == null) {
                    stats.sent(bytes, (System.nanoTime() - sendNanos) / 1000);
                } else {
                    stats.sendFailed();
                    log.debug("send to {} failed", record.topic(), exception);
                }
            });
        } catch (KafkaException e) {
            // Raised by send itself, e.g. a metadata timeout or the client closing under it.
            stats.sendFailed();
            log.debug("send to {} failed", record.topic(), e);
        }
    }

    @Override
    public void finish() {
        // Nothing pending beyond sends in flight, which close waits for.
    }

    @Override
    public void close(Duration timeout) {
        producer.close(timeout);
    }
}

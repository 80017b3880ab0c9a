package io.aloft.autoscaler.model;

import java.util.Objects;

/**
 * One partition's load and its current broker. Aloft serves each partition from exactly one broker
 * (replication factor 1 to Kafka: durability comes from the WAL and object storage), so a move is a
 * change of that one broker and copies no data.
 *
 * <p>Per-partition byte rates are estimated unless the brokers export per-partition meters: a
 * topic's bytes on a broker ({@code kafka_server_brokertopicmetrics_bytesin_total{topic}}) shared over
 * its partitions there in proportion to their log-end-offset growth (Admin ListOffsets). Immutable.
 *
 * @param topic the topic name
 * @param partition the partition index
 * @param broker the broker serving it now
 * @param bytesInPerSec estimated record bytes appended per second
 * @param bytesOutPerSec estimated record bytes fetched per second
 */
public record PartitionLoad(String topic, int partition, int broker, double bytesInPerSec, double bytesOutPerSec) {

    public PartitionLoad {
        Objects.requireNonNull(topic, "topic");
    }

    /** {@code topic-partition}, Kafka's usual spelling, for logs and plans. */
    public String name() {
        return topic + "-" + partition;
    }
}

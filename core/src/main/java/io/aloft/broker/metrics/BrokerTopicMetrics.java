package io.aloft.broker.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.composite.CompositeMeterRegistry;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Predicate;
import org.apache.kafka.common.protocol.Errors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Kafka's {@code kafka.server:type=BrokerTopicMetrics} meters, per topic and for all topics, as
 * counters named {@code kafka_server_brokertopicmetrics_<name>_total}. Kafka's all-topics MBean has
 * no topic tag; Prometheus needs one label set per name, so here the all-topics series carry
 * {@code topic=""}, which PromQL treats as no label at all.
 *
 * <p>What counts, as in Kafka:
 * <ul>
 *   <li>{@code bytesin}, {@code messagesin}: a partition's produced record batches (their bytes as
 *       sent, the records appended), once appended;
 *   <li>{@code totalproducerequests}, {@code totalfetchrequests}: one per partition of a produce or
 *       fetch that reaches a partition (topics unknown to the broker do not count); a fetch that
 *       long-polls reads, and counts, twice, as Kafka's delayed fetch does;
 *   <li>{@code failedproducerequests}, {@code failedfetchrequests}: one per partition failed by an
 *       <i>unexpected</i> error: Kafka leaves out the errors a healthy broker answers routinely
 *       (not the leader, unknown partition, record too large, corrupt batch, offset out of range,
 *       fenced or unknown leader epoch, storage error), and so does this;
 *   <li>{@code bytesout}: the record bytes of each partition of a fetch response;
 *   <li>{@code bytesrejected}: batches refused for being too large ({@code max.message.bytes});
 *   <li>{@code producemessageconversions}, {@code fetchmessageconversions}: always 0 (Aloft
 *       converts no record format), all-topics only.
 * </ul>
 *
 * <p><b>Cardinality.</b> At most {@code aloft.metrics.topic.series.max} topics have series of their
 * own; further topics count only in the totals (one WARN when the limit is first reached). A deleted
 * topic's series are removed ({@link #retainTopics}), which frees its place.
 *
 * <p>Thread-safe: the hot path is a {@link ConcurrentHashMap} lookup and counter increments.
 */
public final class BrokerTopicMetrics {
    private static final Logger log = LoggerFactory.getLogger(BrokerTopicMetrics.class);
    private static final String ALL_TOPICS = "";

    /** Errors a produce answers routinely; the others count as failed produce requests (as Kafka counts). */
    private static final Set<Errors> EXPECTED_PRODUCE_ERRORS = Set.of(Errors.NONE, Errors.UNKNOWN_TOPIC_OR_PARTITION,
            Errors.NOT_LEADER_OR_FOLLOWER, Errors.MESSAGE_TOO_LARGE, Errors.RECORD_LIST_TOO_LARGE,
            Errors.CORRUPT_MESSAGE, Errors.KAFKA_STORAGE_ERROR, Errors.UNKNOWN_TOPIC_ID, Errors.INVALID_TOPIC_EXCEPTION);
    /** Errors a fetch answers routinely; the others count as failed fetch requests. */
    private static final Set<Errors> EXPECTED_FETCH_ERRORS = Set.of(Errors.NONE, Errors.UNKNOWN_TOPIC_OR_PARTITION,
            Errors.NOT_LEADER_OR_FOLLOWER, Errors.UNKNOWN_LEADER_EPOCH, Errors.FENCED_LEADER_EPOCH,
            Errors.REPLICA_NOT_AVAILABLE, Errors.KAFKA_STORAGE_ERROR, Errors.INCONSISTENT_TOPIC_ID,
            Errors.OFFSET_OUT_OF_RANGE, Errors.UNKNOWN_TOPIC_ID);

    private final MeterRegistry registry;
    private final int maxTopics;
    private final Predicate<String> exists;
    private final Meters all;
    private final ConcurrentHashMap<String, Meters> topics = new ConcurrentHashMap<>();
    private final AtomicBoolean warned = new AtomicBoolean();

    /** Meters nobody reads (tests and tools that build handlers without a broker). */
    public static BrokerTopicMetrics none() {
        return new BrokerTopicMetrics(new CompositeMeterRegistry(), 0, topic -> false);
    }

    /**
     * @param maxTopics {@code aloft.metrics.topic.series.max}
     * @param exists whether a topic exists now: only existing topics get series (no series for the
     *     names of a client's typos or of a topic deleted meanwhile)
     */
    public BrokerTopicMetrics(MeterRegistry registry, int maxTopics, Predicate<String> exists) {
        this.registry = registry;
        this.maxTopics = maxTopics;
        this.exists = exists;
        this.all = new Meters(ALL_TOPICS);
        for (String conversions : List.of("producemessageconversions", "fetchmessageconversions")) {
            Counter.builder("kafka.server.brokertopicmetrics." + conversions).tag("topic", ALL_TOPICS)
                    .description("Record batches converted to another format: always 0, Aloft converts none; Kafka's "
                            + "BrokerTopicMetrics " + (conversions.startsWith("produce") ? "Produce" : "Fetch")
                            + "MessageConversionsPerSec")
                    .register(registry);
        }
    }

    /** A partition of a produce request reaches its partition. */
    public void produceRequest(String topic) {
        all.totalProduce.increment();
        Meters m = topic(topic);
        if (m != null) {
            m.totalProduce.increment();
        }
    }

    /** A partition's batches were appended: their bytes as sent and the records appended. */
    public void appended(String topic, long bytes, long records) {
        all.bytesIn.increment(bytes);
        all.messagesIn.increment(records);
        Meters m = topic(topic);
        if (m != null) {
            m.bytesIn.increment(bytes);
            m.messagesIn.increment(records);
        }
    }

    /** A partition's append failed with {@code error} ({@code bytes}: its batches' size). */
    public void produceFailed(String topic, Errors error, long bytes) {
        boolean rejected = error == Errors.MESSAGE_TOO_LARGE || error == Errors.RECORD_LIST_TOO_LARGE;
        boolean failed = !EXPECTED_PRODUCE_ERRORS.contains(error);
        if (!rejected && !failed) {
            return;
        }
        Meters m = topic(topic);
        if (rejected) {
            all.bytesRejected.increment(bytes);
            if (m != null) {
                m.bytesRejected.increment(bytes);
            }
        }
        if (failed) {
            all.failedProduce.increment();
            if (m != null) {
                m.failedProduce.increment();
            }
        }
    }

    /** A partition of a fetch is read, with {@code error} (NONE: read). */
    public void fetchRequest(String topic, Errors error) {
        all.totalFetch.increment();
        Meters m = topic(topic);
        if (m != null) {
            m.totalFetch.increment();
        }
        if (!EXPECTED_FETCH_ERRORS.contains(error)) {
            all.failedFetch.increment();
            if (m != null) {
                m.failedFetch.increment();
            }
        }
    }

    /** Record bytes of one partition sent in a fetch response. */
    public void bytesOut(String topic, long bytes) {
        all.bytesOut.increment(bytes);
        Meters m = topic(topic);
        if (m != null) {
            m.bytesOut.increment(bytes);
        }
    }

    /** Removes the series of every topic not in {@code live} (deleted topics). */
    public void retainTopics(Set<String> live) {
        for (String topic : topics.keySet()) {
            if (!live.contains(topic)) {
                Meters m = topics.remove(topic);
                if (m != null) {
                    m.remove();
                }
            }
        }
    }

    /** Topics with series of their own now (for tests). */
    Set<String> topicsWithSeries() {
        return Set.copyOf(topics.keySet());
    }

    private Meters topic(String topic) {
        Meters m = topics.get(topic);
        if (m != null || topic == null || topic.isEmpty()) {
            return m;
        }
        synchronized (topics) {
            m = topics.get(topic);
            if (m == null) {
                if (!exists.test(topic)) {
                    return null;
                }
                if (topics.size() >= maxTopics) {
                    if (maxTopics > 0 && warned.compareAndSet(false, true)) {
                        log.warn("Per-topic metrics are kept for at most {} topics (aloft.metrics.topic.series.max); "
                                + "{} and further topics count only in the all-topics series", maxTopics, topic);
                    }
                    return null;
                }
                m = new Meters(topic);
                topics.put(topic, m);
            }
            return m;
        }
    }

    /** One topic's counters (or all topics', with topic ""). */
    private final class Meters {
        final Counter bytesIn;
        final Counter bytesOut;
        final Counter messagesIn;
        final Counter totalProduce;
        final Counter totalFetch;
        final Counter failedProduce;
        final Counter failedFetch;
        final Counter bytesRejected;

        Meters(String topic) {
            // Kafka's names carry no unit suffix (dashboards built on the JMX exporter's names work as they are).
            bytesIn = counter(topic, "bytesin", "Record batch bytes appended, as producers sent them; "
                    + "Kafka's BytesInPerSec");
            bytesOut = counter(topic, "bytesout", "Record bytes sent in fetch responses; Kafka's BytesOutPerSec");
            messagesIn = counter(topic, "messagesin", "Records appended by producers; Kafka's MessagesInPerSec");
            totalProduce = counter(topic, "totalproducerequests", "Partitions of produce requests that reached "
                    + "their partition; Kafka's TotalProduceRequestsPerSec");
            totalFetch = counter(topic, "totalfetchrequests", "Partition reads of fetch requests; Kafka's "
                    + "TotalFetchRequestsPerSec");
            failedProduce = counter(topic, "failedproducerequests", "Partitions of produce requests failed by an "
                    + "unexpected error (not: not leader, unknown partition, too large, corrupt); Kafka's "
                    + "FailedProduceRequestsPerSec");
            failedFetch = counter(topic, "failedfetchrequests", "Partition reads of fetch requests failed by an "
                    + "unexpected error (not: not leader, unknown partition, epoch, offset out of range); Kafka's "
                    + "FailedFetchRequestsPerSec");
            bytesRejected = counter(topic, "bytesrejected", "Record batch bytes refused for exceeding "
                    + "max.message.bytes; Kafka's BytesRejectedPerSec");
        }

        private Counter counter(String topic, String name, String description) {
            return Counter.builder("kafka.server.brokertopicmetrics." + name).tag("topic", topic)
                    .description(description + " (topic=\"\": all topics)").register(registry);
        }

        void remove() {
            for (Counter c : List.of(bytesIn, bytesOut, messagesIn, totalProduce, totalFetch, failedProduce,
                    failedFetch, bytesRejected)) {
                registry.remove(c);
            }
        }
    }
}

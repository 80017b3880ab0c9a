package io.aloft.broker.share;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.function.Consumer;
import java.util.function.Predicate;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaShareConsumer;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * Share consumers (kafka-clients 4.3.1 {@link KafkaShareConsumer}) for the scenarios, and a bounded
 * poll loop.
 *
 * <p>Stateless; each consumer it makes is confined to the thread that polls it.
 */
final class ShareConsumers {
    /** How long one poll waits for records. */
    static final Duration POLL = Duration.ofMillis(200);

    private ShareConsumers() {
    }

    /**
     * A consumer in {@code group} subscribed to {@code topic}: implicit acknowledgement (each poll
     * accepts what the one before returned) or explicit ({@code share.acknowledgement.mode=explicit}:
     * the application acknowledges each record), at most {@code maxPollRecords} records a poll.
     */
    static KafkaShareConsumer<String, String> subscribed(ShareTarget target, String group, String topic,
            boolean explicit, int maxPollRecords) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, target.bootstrap);
        p.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        p.put(ConsumerConfig.SHARE_ACKNOWLEDGEMENT_MODE_CONFIG, explicit ? "explicit" : "implicit");
        p.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, Integer.toString(maxPollRecords));
        KafkaShareConsumer<String, String> c = new KafkaShareConsumer<>(p);
        c.subscribe(List.of(topic));
        return c;
    }

    static KafkaShareConsumer<String, String> subscribed(ShareTarget target, String group, String topic,
            boolean explicit) {
        return subscribed(target, group, topic, explicit, 500);
    }

    /**
     * Polls until {@code done} holds for every record seen so far (in delivery order), handing each
     * poll's records to {@code onPoll} (which, in explicit mode, must acknowledge them all) first;
     * fails after {@link ShareTarget#WAIT}. Returns every record seen.
     */
    static List<ConsumerRecord<String, String>> pollUntil(KafkaShareConsumer<String, String> c, String what,
            Consumer<List<ConsumerRecord<String, String>>> onPoll, Predicate<List<ConsumerRecord<String, String>>> done) {
        List<ConsumerRecord<String, String>> seen = new ArrayList<>();
        long deadline = System.nanoTime() + ShareTarget.WAIT.toNanos();
        while (!done.test(seen)) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError(what + " not within " + ShareTarget.WAIT + "; seen: " + describe(seen));
            }
            List<ConsumerRecord<String, String>> batch = new ArrayList<>();
            c.poll(POLL).forEach(batch::add);
            onPoll.accept(batch);
            seen.addAll(batch);
        }
        return seen;
    }

    /** {@code value#deliveryCount} of each record, for messages. */
    static List<String> describe(List<ConsumerRecord<String, String>> records) {
        return records.stream().map(r -> r.value() + "#" + r.deliveryCount().map(String::valueOf).orElse("?"))
                .toList();
    }

    static List<String> values(List<ConsumerRecord<String, String>> records) {
        return records.stream().map(ConsumerRecord::value).toList();
    }

    static boolean hasValue(List<ConsumerRecord<String, String>> records, String value) {
        return records.stream().anyMatch(r -> r.value().equals(value));
    }
}

package io.aloft.compat;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * The harness's own look at what a client left on the broker, with the newest kafka-clients: the
 * client checks itself, and this catches a client (or a client check) that is more lenient than it
 * should be. After a passing run the topic has its partitions, its end offsets add up to the
 * records produced, and the group's committed offsets equal the end offsets.
 *
 * <p>Stateless.
 */
final class BrokerCheck {
    private static final long TIMEOUT_S = 15;

    private BrokerCheck() {
    }

    /** @return null if all holds, else what does not */
    static String committedEverything(Scenario s) throws Exception {
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, s.bootstrap());
        p.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, "10000");
        p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, Long.toString(TimeUnit.SECONDS.toMillis(TIMEOUT_S)));
        try (Admin admin = Admin.create(p)) {
            TopicDescription topic = admin.describeTopics(List.of(s.topic())).allTopicNames()
                    .get(TIMEOUT_S, TimeUnit.SECONDS).get(s.topic());
            if (topic.partitions().size() != s.partitions()) {
                return "topic " + s.topic() + " has " + topic.partitions().size() + " partitions, expected "
                        + s.partitions();
            }
            Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
            for (int i = 0; i < s.partitions(); i++) {
                latest.put(new TopicPartition(s.topic(), i), OffsetSpec.latest());
            }
            Map<TopicPartition, Long> ends = new HashMap<>();
            admin.listOffsets(latest).all().get(TIMEOUT_S, TimeUnit.SECONDS)
                    .forEach((tp, info) -> ends.put(tp, info.offset()));
            long total = ends.values().stream().mapToLong(Long::longValue).sum();
            if (total != s.records()) {
                return "end offsets of " + s.topic() + " add up to " + total + ", expected " + s.records() + ": " + ends;
            }
            Map<TopicPartition, OffsetAndMetadata> committed = admin.listConsumerGroupOffsets(s.group())
                    .partitionsToOffsetAndMetadata().get(TIMEOUT_S, TimeUnit.SECONDS);
            for (Map.Entry<TopicPartition, Long> e : ends.entrySet()) {
                OffsetAndMetadata c = committed.get(e.getKey());
                if (c == null || c.offset() != e.getValue()) {
                    return "group " + s.group() + " committed " + committed + ", expected the end offsets " + ends;
                }
            }
            return null;
        }
    }
}

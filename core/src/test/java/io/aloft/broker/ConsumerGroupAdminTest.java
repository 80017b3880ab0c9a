package io.aloft.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.ConsumerGroupListing;
import org.apache.kafka.clients.admin.GroupListing;
import org.apache.kafka.clients.admin.ListGroupsOptions;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.GroupState;
import org.apache.kafka.common.GroupType;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.GroupIdNotFoundException;
import org.apache.kafka.common.errors.GroupNotEmptyException;
import org.apache.kafka.common.errors.GroupSubscribedToTopicException;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The group admin APIs through the real Admin client: listing, describing, offsets and deletion
 * with their errors. listConsumerGroups is deprecated in kafka-clients 4 in favour of listGroups,
 * but tools still call it, so both are exercised.
 */
@SuppressWarnings("deprecation")
class ConsumerGroupAdminTest {
    private static final String TOPIC = "events";
    private static final TopicPartition P0 = new TopicPartition(TOPIC, 0);
    private static final TopicPartition P1 = new TopicPartition(TOPIC, 1);
    private static final long WAIT_MS = 60_000;

    @TempDir
    static Path dir;
    static TestBroker broker;
    static Admin admin;

    @BeforeAll
    static void start() throws Exception {
        broker = new TestBroker(dir, Map.of("group.initial.rebalance.delay.ms", "0"));
        admin = Admin.create(broker.clientProps());
        admin.createTopics(List.of(new NewTopic(TOPIC, 2, (short) 1))).all().get(30, TimeUnit.SECONDS);
    }

    @AfterAll
    static void stop() {
        if (admin != null) {
            admin.close();
        }
        if (broker != null) {
            broker.close();
        }
    }

    private static <T> T get(Future<T> f) throws Exception {
        return f.get(30, TimeUnit.SECONDS);
    }

    private static Throwable failure(Future<?> f) {
        ExecutionException e = assertThrows(ExecutionException.class, () -> f.get(30, TimeUnit.SECONDS));
        return e.getCause();
    }

    private static void commit(String group, Map<TopicPartition, Long> offsets) throws Exception {
        Map<TopicPartition, OffsetAndMetadata> m = new HashMap<>();
        offsets.forEach((tp, o) -> m.put(tp, new OffsetAndMetadata(o)));
        get(admin.alterConsumerGroupOffsets(group, m).all());
    }

    private static Map<TopicPartition, Long> offsets(String group) throws Exception {
        return get(admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata()).entrySet().stream()
                .collect(Collectors.toMap(Map.Entry::getKey, e -> e.getValue().offset()));
    }

    /** A consumer that has joined {@code group} and holds both partitions. */
    private static KafkaConsumer<String, String> activeMember(String group) throws Exception {
        commit(group, Map.of(P0, 0L, P1, 0L)); // its start positions: ListOffsets is not served here
        Properties p = broker.clientProps();
        p.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        p.put(ConsumerConfig.CLIENT_ID_CONFIG, "member-of-" + group);
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        KafkaConsumer<String, String> consumer = new KafkaConsumer<>(p);
        consumer.subscribe(List.of(TOPIC));
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(WAIT_MS);
        while (consumer.assignment().size() < 2) {
            assertTrue(System.nanoTime() < deadline, "no assignment yet: " + consumer.assignment());
            consumer.poll(Duration.ofMillis(100));
        }
        return consumer;
    }

    @Test
    void listAndDescribe_activeAndIdleGroups() throws Exception {
        commit("idle-listed", Map.of(P0, 3L));
        try (KafkaConsumer<String, String> member = activeMember("active-listed")) {
            Map<String, ConsumerGroupListing> listed = get(admin.listConsumerGroups().all()).stream()
                    .collect(Collectors.toMap(ConsumerGroupListing::groupId, l -> l));
            assertEquals(GroupState.STABLE, listed.get("active-listed").groupState().orElseThrow());
            assertEquals(GroupState.EMPTY, listed.get("idle-listed").groupState().orElseThrow());
            // A group only ever committed to by the admin has no protocol type: a "simple" group.
            assertTrue(listed.get("idle-listed").isSimpleConsumerGroup());
            Map<String, GroupListing> groups = get(admin.listGroups(ListGroupsOptions.forConsumerGroups()).all())
                    .stream().collect(Collectors.toMap(GroupListing::groupId, l -> l));
            assertEquals(GroupType.CLASSIC, groups.get("active-listed").type().orElseThrow());
            assertEquals(GroupState.STABLE, groups.get("active-listed").groupState().orElseThrow());
            assertEquals(GroupState.EMPTY, groups.get("idle-listed").groupState().orElseThrow());

            Map<String, ConsumerGroupDescription> described =
                    get(admin.describeConsumerGroups(List.of("active-listed", "idle-listed")).all());
            ConsumerGroupDescription active = described.get("active-listed");
            assertEquals(GroupState.STABLE, active.groupState());
            assertEquals(broker.broker().nodeId(), active.coordinator().id());
            assertEquals(1, active.members().size());
            MemberDescription m = active.members().iterator().next();
            assertEquals("member-of-active-listed", m.clientId());
            assertEquals(Set.of(P0, P1), m.assignment().topicPartitions());
            ConsumerGroupDescription idle = described.get("idle-listed");
            assertEquals(GroupState.EMPTY, idle.groupState());
            assertEquals(0, idle.members().size());

            assertInstanceOf(GroupIdNotFoundException.class,
                    failure(admin.describeConsumerGroups(List.of("never-existed")).all()));
        }
    }

    @Test
    void deleteConsumerGroupOffsets_onlyForPartitionsNotConsumed() throws Exception {
        commit("idle-offsets", Map.of(P0, 5L, P1, 7L));
        assertEquals(Map.of(P0, 5L, P1, 7L), offsets("idle-offsets"));
        get(admin.deleteConsumerGroupOffsets("idle-offsets", Set.of(P0)).all());
        assertEquals(Map.of(P1, 7L), offsets("idle-offsets"));

        try (KafkaConsumer<String, String> member = activeMember("active-offsets")) {
            Throwable refused = failure(admin.deleteConsumerGroupOffsets("active-offsets", Set.of(P0)).all());
            assertInstanceOf(GroupSubscribedToTopicException.class, refused);
            assertEquals(Map.of(P0, 0L, P1, 0L), offsets("active-offsets"));
        }
        assertInstanceOf(GroupIdNotFoundException.class,
                failure(admin.deleteConsumerGroupOffsets("never-existed", Set.of(P0)).all()));
    }

    @Test
    void deleteConsumerGroups_emptyGoesNonEmptyIsRefused() throws Exception {
        commit("idle-deleted", Map.of(P0, 2L));
        try (KafkaConsumer<String, String> member = activeMember("active-kept")) {
            Throwable refused = failure(admin.deleteConsumerGroups(List.of("active-kept")).all());
            assertInstanceOf(GroupNotEmptyException.class, refused);

            get(admin.deleteConsumerGroups(List.of("idle-deleted")).all());
            Set<String> listed = get(admin.listConsumerGroups().all()).stream()
                    .map(ConsumerGroupListing::groupId).collect(Collectors.toSet());
            assertTrue(listed.contains("active-kept"), listed.toString());
            assertTrue(!listed.contains("idle-deleted"), listed.toString());
            assertEquals(Map.of(), offsets("idle-deleted"));
            assertInstanceOf(GroupIdNotFoundException.class,
                    failure(admin.deleteConsumerGroups(List.of("idle-deleted")).all()));
        }
        // Once its last member has left, the group can go too.
        get(admin.deleteConsumerGroups(List.of("active-kept")).all());
        assertEquals(Map.of(), offsets("active-kept"));
    }
}

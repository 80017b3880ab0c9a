package io.aloft.broker.handler;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.aloft.broker.api.RequestContext;
import io.aloft.broker.metadata.MetadataCache;
import io.aloft.broker.share.ShareGroupDirectory;
import io.aloft.broker.share.state.SharePartitionKey;
import io.aloft.broker.share.state.ShareState;
import io.aloft.broker.share.state.ShareStatePersister;
import io.aloft.broker.share.state.ShareStateSummary;
import io.aloft.broker.share.state.StateBatch;
import io.aloft.controller.model.PartitionInfo;
import io.aloft.controller.model.TopicInfo;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.GroupIdNotFoundException;
import org.apache.kafka.common.errors.NotCoordinatorException;
import org.apache.kafka.common.message.AlterShareGroupOffsetsRequestData;
import org.apache.kafka.common.message.AlterShareGroupOffsetsRequestData.AlterShareGroupOffsetsRequestPartition;
import org.apache.kafka.common.message.AlterShareGroupOffsetsRequestData.AlterShareGroupOffsetsRequestTopic;
import org.apache.kafka.common.message.AlterShareGroupOffsetsResponseData;
import org.apache.kafka.common.message.DeleteShareGroupOffsetsRequestData;
import org.apache.kafka.common.message.DeleteShareGroupOffsetsRequestData.DeleteShareGroupOffsetsRequestTopic;
import org.apache.kafka.common.message.DeleteShareGroupOffsetsResponseData;
import org.apache.kafka.common.message.DescribeShareGroupOffsetsRequestData;
import org.apache.kafka.common.message.DescribeShareGroupOffsetsRequestData.DescribeShareGroupOffsetsRequestGroup;
import org.apache.kafka.common.message.DescribeShareGroupOffsetsRequestData.DescribeShareGroupOffsetsRequestTopic;
import org.apache.kafka.common.message.DescribeShareGroupOffsetsResponseData.DescribeShareGroupOffsetsResponseGroup;
import org.apache.kafka.common.message.DescribeShareGroupOffsetsResponseData.DescribeShareGroupOffsetsResponsePartition;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AlterShareGroupOffsetsRequest;
import org.apache.kafka.common.requests.AlterShareGroupOffsetsResponse;
import org.apache.kafka.common.requests.DeleteShareGroupOffsetsRequest;
import org.apache.kafka.common.requests.DeleteShareGroupOffsetsResponse;
import org.apache.kafka.common.requests.DescribeShareGroupOffsetsRequest;
import org.apache.kafka.common.requests.DescribeShareGroupOffsetsResponse;
import org.apache.kafka.common.requests.RequestHeader;
import org.junit.jupiter.api.Test;

/** The share-group offsets admin handlers against a fake group directory and persister. */
class ShareGroupOffsetsHandlersTest {
    private static final UUID TOPIC_UUID = UUID.randomUUID();
    private static final Uuid TOPIC_ID = new Uuid(TOPIC_UUID.getMostSignificantBits(),
            TOPIC_UUID.getLeastSignificantBits());

    private final MetadataCache cache = new MetadataCache();
    private final FakeDirectory directory = new FakeDirectory();
    private final FakePersister persister = new FakePersister();

    ShareGroupOffsetsHandlersTest() {
        cache.putTopic(new TopicInfo(TOPIC_UUID, "t", Map.of(), List.of(new PartitionInfo(0, 1, 0, List.of(1L)),
                new PartitionInfo(1, 1, 0, List.of(2L)))));
    }

    @Test
    void describe_initializedPartition_startOffsetAndLag() throws Exception {
        directory.groups.put("g", summary("g", 0, Map.of(TOPIC_ID, Set.of(0))));
        persister.summaries.put(new SharePartitionKey("g", TOPIC_ID, 0), new ShareStateSummary(3, 10, 2, 4));
        DescribeShareGroupOffsetsResponseGroup g = describe("g", List.of(0, 1, 7), (short) 1);
        assertEquals(Errors.NONE.code(), g.errorCode());
        List<DescribeShareGroupOffsetsResponsePartition> parts = g.topics().get(0).partitions();
        assertEquals(TOPIC_ID, g.topics().get(0).topicId());
        assertEquals(10, parts.get(0).startOffset());
        assertEquals(2, parts.get(0).leaderEpoch());
        assertEquals(25 - 10 - 4, parts.get(0).lag(), "high watermark 25, 4 done above the start offset");
        assertEquals(-1, parts.get(1).startOffset(), "no state");
        persister.summaries.put(new SharePartitionKey("g", TOPIC_ID, 0), new ShareStateSummary(3, 30, 2, 0));
        assertEquals(-1, describe("g", List.of(0), (short) 1).topics().get(0).partitions().get(0).lag(),
                "a start offset beyond the high watermark has no lag");
        assertEquals(Errors.UNKNOWN_TOPIC_OR_PARTITION.code(), parts.get(2).errorCode());
        // Every topic with state when none is named.
        DescribeShareGroupOffsetsResponseGroup all = describe("g", null, (short) 1);
        assertEquals(1, all.topics().size());
        assertEquals(List.of(0), all.topics().get(0).partitions().stream()
                .map(DescribeShareGroupOffsetsResponsePartition::partitionIndex).toList());
    }

    @Test
    void describe_unknownGroupOrTopic_orNotCoordinator_kafkasErrors() throws Exception {
        // Kafka 4.3.1 answers an unknown group without an error: its partitions have no state.
        DescribeShareGroupOffsetsResponseGroup unknown = describe("nope", List.of(0), (short) 1);
        assertEquals(Errors.NONE.code(), unknown.errorCode());
        assertEquals(-1, unknown.topics().get(0).partitions().get(0).startOffset());
        assertTrue(describe("nope", null, (short) 1).topics().isEmpty());
        directory.groups.put("g", summary("g", 0, Map.of()));
        DescribeShareGroupOffsetsResponseGroup g = describe("g", List.of(0), (short) 0, "no-such-topic");
        // An unknown topic too (ApiConformanceTest compares it with Kafka 4.3.1): no error, no state.
        assertEquals(Errors.NONE.code(), g.topics().get(0).partitions().get(0).errorCode());
        assertEquals(-1, g.topics().get(0).partitions().get(0).startOffset());
        directory.failure = new NotCoordinatorException("not here");
        assertEquals(Errors.NOT_COORDINATOR.code(), describe("g", List.of(0), (short) 1).errorCode());
        directory.failure = new GroupIdNotFoundException("Group g is not a share group.");
        assertEquals(Errors.NONE.code(), describe("g", null, (short) 1).errorCode());
    }

    @Test
    void alter_emptyGroup_initializesWithNextEpoch_andRecordsInitialized() throws Exception {
        directory.groups.put("g", summary("g", 0, Map.of(TOPIC_ID, Set.of(0))));
        persister.summaries.put(new SharePartitionKey("g", TOPIC_ID, 0), new ShareStateSummary(3, 10, 2, 4));
        AlterShareGroupOffsetsResponseData r = alter("g", "t", Map.of(0, 5L, 1, 7L, 9, 1L));
        assertEquals(Errors.NONE.code(), r.errorCode());
        var parts = r.responses().find("t").partitions();
        assertEquals(Errors.NONE.code(), parts.get(0).errorCode());
        assertEquals(Errors.NONE.code(), parts.get(1).errorCode());
        assertEquals(Errors.UNKNOWN_TOPIC_OR_PARTITION.code(), parts.get(2).errorCode());
        assertEquals(Set.of("g/0@5 epoch 4", "g/1@7 epoch 0"), Set.copyOf(persister.initialized));
        assertEquals(List.of(Map.of(TOPIC_ID, Set.of(0, 1))), directory.added);
    }

    @Test
    void alter_groupWithMembers_nonEmptyGroup_nothingChanged() throws Exception {
        directory.groups.put("g", summary("g", 2, Map.of()));
        assertEquals(Errors.NON_EMPTY_GROUP.code(), alter("g", "t", Map.of(0, 5L)).errorCode());
        assertTrue(persister.initialized.isEmpty());
        assertEquals(Errors.UNKNOWN_TOPIC_OR_PARTITION.code(), alter("other", "no-such-topic", Map.of(0, 5L))
                .responses().find("no-such-topic").partitions().get(0).errorCode());
        assertTrue(directory.added.isEmpty(), "nothing initialized, nothing recorded");
    }

    @Test
    void delete_deletesStateOfTheTopic_andForgetsIt() throws Exception {
        assertEquals(Errors.GROUP_ID_NOT_FOUND.code(), delete("g", "t").errorCode());
        directory.groups.put("g", summary("g", 1, Map.of(TOPIC_ID, Set.of(0, 1))));
        assertEquals(Errors.NON_EMPTY_GROUP.code(), delete("g", "t").errorCode());
        directory.groups.put("g", summary("g", 0, Map.of(TOPIC_ID, Set.of(0, 1))));
        DeleteShareGroupOffsetsResponseData r = delete("g", "t", "no-such-topic");
        assertEquals(Errors.NONE.code(), r.errorCode());
        assertEquals(Errors.NONE.code(), r.responses().get(0).errorCode());
        assertEquals(TOPIC_ID, r.responses().get(0).topicId());
        assertEquals(Errors.UNKNOWN_TOPIC_OR_PARTITION.code(), r.responses().get(1).errorCode());
        assertEquals(Set.of("g/0", "g/1"), Set.copyOf(persister.deleted));
        assertEquals(List.of(Set.of(TOPIC_ID)), directory.removed);
    }

    private DescribeShareGroupOffsetsResponseGroup describe(String group, List<Integer> partitions, short version,
            String... topicName) throws Exception {
        String topic = topicName.length == 0 ? "t" : topicName[0];
        DescribeShareGroupOffsetsRequestData data = new DescribeShareGroupOffsetsRequestData().setGroups(List.of(
                new DescribeShareGroupOffsetsRequestGroup().setGroupId(group).setTopics(partitions == null ? null
                        : List.of(new DescribeShareGroupOffsetsRequestTopic().setTopicName(topic)
                                .setPartitions(partitions)))));
        DescribeShareGroupOffsetsResponse r = (DescribeShareGroupOffsetsResponse) new DescribeShareGroupOffsetsHandler(
                directory, persister, cache, tp -> 25).handle(context(ApiKeys.DESCRIBE_SHARE_GROUP_OFFSETS, version),
                        new DescribeShareGroupOffsetsRequest.Builder(data).build(version)).get(10, TimeUnit.SECONDS);
        return r.data().groups().get(0);
    }

    private AlterShareGroupOffsetsResponseData alter(String group, String topic, Map<Integer, Long> offsets)
            throws Exception {
        AlterShareGroupOffsetsRequestTopic t = new AlterShareGroupOffsetsRequestTopic().setTopicName(topic);
        new java.util.TreeMap<>(offsets).forEach((p, o) -> t.partitions().add(
                new AlterShareGroupOffsetsRequestPartition().setPartitionIndex(p).setStartOffset(o)));
        AlterShareGroupOffsetsRequestData data = new AlterShareGroupOffsetsRequestData().setGroupId(group);
        data.topics().add(t);
        return ((AlterShareGroupOffsetsResponse) new AlterShareGroupOffsetsHandler(directory, persister, cache)
                .handle(context(ApiKeys.ALTER_SHARE_GROUP_OFFSETS, (short) 0),
                        new AlterShareGroupOffsetsRequest.Builder(data).build((short) 0))
                .get(10, TimeUnit.SECONDS)).data();
    }

    private DeleteShareGroupOffsetsResponseData delete(String group, String... topics) throws Exception {
        DeleteShareGroupOffsetsRequestData data = new DeleteShareGroupOffsetsRequestData().setGroupId(group)
                .setTopics(java.util.Arrays.stream(topics).map(t -> new DeleteShareGroupOffsetsRequestTopic()
                        .setTopicName(t)).toList());
        return ((DeleteShareGroupOffsetsResponse) new DeleteShareGroupOffsetsHandler(directory, persister, cache)
                .handle(context(ApiKeys.DELETE_SHARE_GROUP_OFFSETS, (short) 0),
                        new DeleteShareGroupOffsetsRequest.Builder(data).build((short) 0))
                .get(10, TimeUnit.SECONDS)).data();
    }

    private static RequestContext context(ApiKeys api, short version) {
        return new RequestContext(new RequestHeader(api, version, "client", 1), "PLAINTEXT",
                new InetSocketAddress("127.0.0.1", 40000), "conn-1");
    }

    private static ShareGroupDirectory.ShareGroupSummary summary(String id, int members,
            Map<Uuid, Set<Integer>> initialized) {
        return new ShareGroupDirectory.ShareGroupSummary(id, members > 0 ? "Stable" : "Empty", 1, members, Set.of("t"),
                initialized);
    }

    /** Groups by id; records what updateInitialized was told. Test-thread only. */
    private static final class FakeDirectory implements ShareGroupDirectory {
        final Map<String, ShareGroupSummary> groups = new HashMap<>();
        final List<Map<Uuid, Set<Integer>>> added = new ArrayList<>();
        final List<Set<Uuid>> removed = new ArrayList<>();
        RuntimeException failure;

        @Override
        public CompletableFuture<Optional<ShareGroupSummary>> describe(String groupId) {
            return failure != null ? CompletableFuture.failedFuture(failure)
                    : CompletableFuture.completedFuture(Optional.ofNullable(groups.get(groupId)));
        }

        @Override
        public CompletableFuture<Void> updateInitialized(String groupId, Map<Uuid, Set<Integer>> add,
                Set<Uuid> removedTopics) {
            if (!add.isEmpty()) {
                added.add(add);
            }
            if (!removedTopics.isEmpty()) {
                removed.add(removedTopics);
            }
            return CompletableFuture.completedFuture(null);
        }
    }

    /** Summaries by key; records initializes and deletes. Test-thread only (futures complete at once). */
    private static final class FakePersister implements ShareStatePersister {
        final Map<SharePartitionKey, ShareStateSummary> summaries = new HashMap<>();
        final List<String> initialized = new ArrayList<>();
        final List<String> deleted = new ArrayList<>();

        @Override
        public CompletableFuture<Void> initialize(SharePartitionKey key, int stateEpoch, long startOffset) {
            initialized.add(key.groupId() + "/" + key.partition() + "@" + startOffset + " epoch " + stateEpoch);
            return CompletableFuture.completedFuture(null);
        }

        @Override
        public CompletableFuture<Optional<ShareState>> read(SharePartitionKey key, int leaderEpoch) {
            throw new UnsupportedOperationException();
        }

        @Override
        public CompletableFuture<Void> write(SharePartitionKey key, int stateEpoch, int leaderEpoch, long startOffset,
                int deliveryCompleteCount, List<StateBatch> batches) {
            throw new UnsupportedOperationException();
        }

        @Override
        public CompletableFuture<Optional<ShareStateSummary>> readSummary(SharePartitionKey key) {
            return CompletableFuture.completedFuture(Optional.ofNullable(summaries.get(key)));
        }

        @Override
        public CompletableFuture<Void> delete(SharePartitionKey key) {
            deleted.add(key.groupId() + "/" + key.partition());
            return CompletableFuture.completedFuture(null);
        }
    }
}

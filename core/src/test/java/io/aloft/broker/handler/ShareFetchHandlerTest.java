package io.aloft.broker.handler;

import static io.aloft.broker.handler.ShareFixture.P0;
import static io.aloft.broker.handler.ShareFixture.P1;
import static io.aloft.broker.handler.ShareFixture.P2;
import static io.aloft.broker.handler.ShareFixture.SECRET;
import static io.aloft.broker.handler.ShareFixture.T;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.aloft.broker.api.RequestContext;
import io.aloft.broker.share.fetch.FakeSharePartitions;
import io.aloft.broker.share.partition.AcknowledgeResult;
import io.aloft.broker.share.partition.Acknowledgement;
import io.aloft.broker.share.partition.Acquired;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.ShareFetchRequestData;
import org.apache.kafka.common.message.ShareFetchRequestData.AcknowledgementBatch;
import org.apache.kafka.common.message.ShareFetchRequestData.FetchPartition;
import org.apache.kafka.common.message.ShareFetchRequestData.FetchTopic;
import org.apache.kafka.common.message.ShareFetchResponseData;
import org.apache.kafka.common.message.ShareFetchResponseData.PartitionData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.ShareFetchRequest;
import org.apache.kafka.common.requests.ShareFetchResponse;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class ShareFetchHandlerTest {
    private final ShareFixture f = new ShareFixture();
    private final ShareFetchHandler handler = f.fetchHandler();

    @AfterEach
    void close() {
        f.close();
    }

    static ShareFetchRequestData fetch(int epoch, int maxWaitMs, TopicIdPartition... tps) {
        ShareFetchRequestData d = new ShareFetchRequestData().setGroupId("g").setMemberId("m")
                .setShareSessionEpoch(epoch).setMaxWaitMs(maxWaitMs).setMinBytes(1).setMaxBytes(1 << 20)
                .setMaxRecords(100).setBatchSize(10);
        for (TopicIdPartition tp : tps) {
            partition(d, tp.topicId(), tp.partition());
        }
        return d;
    }

    static FetchPartition partition(ShareFetchRequestData d, Uuid topicId, int partition) {
        FetchTopic t = d.topics().find(topicId);
        if (t == null) {
            t = new FetchTopic().setTopicId(topicId);
            d.topics().add(t);
        }
        FetchPartition p = new FetchPartition().setPartitionIndex(partition);
        t.partitions().add(p);
        return p;
    }

    private CompletableFuture<AbstractResponse> send(RequestContext context, short version, ShareFetchRequestData d) {
        return handler.handle(context, new ShareFetchRequest.Builder(d).build(version));
    }

    private ShareFetchResponseData fetchNow(short version, ShareFetchRequestData d) throws Exception {
        return ((ShareFetchResponse) send(ShareFixture.context(ApiKeys.SHARE_FETCH, version), version, d)
                .get(10, TimeUnit.SECONDS)).data();
    }

    private static PartitionData answer(ShareFetchResponseData r, Uuid topic, int partition) {
        ShareFetchResponseData.ShareFetchableTopicResponse t = r.responses().find(topic);
        if (t == null) {
            return null;
        }
        return t.partitions().stream().filter(p -> p.partitionIndex() == partition).findFirst().orElse(null);
    }

    @Test
    void handle_acquired_recordsRangesAndLockTimeout_onlyPartitionsWithNews() throws Exception {
        f.shares.willAcquire(P0, ShareFixture.acquired(5, 7));
        for (short v = 1; v <= 2; v++) {
            f.shares.willAcquire(P0, ShareFixture.acquired(5, 7));
            ShareFetchResponseData r = fetchNow(v, fetch(0, 0, P0, P1));
            assertEquals(Errors.NONE.code(), r.errorCode());
            assertEquals(ShareFixture.LOCK_MS, r.acquisitionLockTimeoutMs());
            PartitionData p0 = answer(r, T, 0);
            assertEquals(Errors.NONE.code(), p0.errorCode());
            assertEquals(List.of(new ShareFetchResponseData.AcquiredRecords().setFirstOffset(5).setLastOffset(7)
                    .setDeliveryCount((short) 1)), p0.acquiredRecords());
            assertEquals(ShareFixture.batch(5, 3).remaining(), p0.records().sizeInBytes());
            assertNull(answer(r, T, 1), "nothing acquired, no error: not answered, even in a new session (Kafka)");
        }
        FakeAssert.acquire(f.shares.acquires.get(0), P0, 1 << 20, 100, false);
    }

    @Test
    void handle_budgets_eachPartitionGetsWhatTheOnesBeforeLeft_v2RecordLimit() throws Exception {
        f.shares.willAcquire(P0, ShareFixture.acquired(0, 9)).willAcquire(P1, ShareFixture.acquired(0, 2));
        ShareFetchRequestData d = fetch(0, 0, P0, P1).setMaxRecords(12).setShareAcquireMode((byte) 1);
        fetchNow((short) 2, d);
        assertEquals(2, f.shares.acquires.size());
        FakeAssert.acquire(f.shares.acquires.get(0), P0, 1 << 20, 12, true);
        FakeAssert.acquire(f.shares.acquires.get(1), P1, (1 << 20) - ShareFixture.batch(0, 10).remaining(), 2, true);
        d.setShareSessionEpoch(1).setMaxRecords(5).topics().clear();
        f.shares.willAcquire(P1, ShareFixture.acquired(3, 7));
        fetchNow((short) 2, d);
        // Epoch 1 starts at the session's second partition; its 5 records spend the budget: P0 is not asked.
        assertEquals(3, f.shares.acquires.size());
        assertEquals(P1.partition(), f.shares.acquires.get(2).tp().partition());
    }

    @Test
    void handle_nothingToAcquire_waitsUntilWokenByWakeOnAvailable_thenCancelsTheOtherWakes() throws Exception {
        CompletableFuture<AbstractResponse> pending = send(ShareFixture.context(ApiKeys.SHARE_FETCH, (short) 1),
                (short) 1, fetch(0, 60_000, P0, P1));
        assertFalse(pending.isDone(), "long poll");
        assertEquals(1, f.shares.waiting(P0));
        assertEquals(1, f.shares.waiting(P1));
        f.shares.willAcquire(P1, ShareFixture.acquired(0, 0));
        f.shares.makeAvailable(P1);
        ShareFetchResponseData r = ((ShareFetchResponse) pending.get(10, TimeUnit.SECONDS)).data();
        assertEquals(1, answer(r, T, 1).acquiredRecords().size());
        assertEquals(0, f.shares.waiting(P0), "the wake left on P0 is cancelled");
        assertEquals(List.of(P0), f.shares.cancelled.stream().map(tp -> new TopicIdPartition(tp.topicId(),
                tp.partition(), "t")).toList());
    }

    @Test
    void handle_wokenButAnotherMemberTookTheRecords_waitsAgainUntilTheDeadline() throws Exception {
        CompletableFuture<AbstractResponse> pending = send(ShareFixture.context(ApiKeys.SHARE_FETCH, (short) 1),
                (short) 1, fetch(0, 300, P0));
        f.shares.makeAvailable(P0); // nothing there when it looks again
        ShareFetchResponseData r = ((ShareFetchResponse) pending.get(10, TimeUnit.SECONDS)).data();
        assertEquals(Errors.NONE.code(), r.errorCode());
        assertTrue(r.responses().isEmpty());
        assertTrue(f.shares.acquires.size() >= 2, "acquired again after the wake");
        assertEquals(0, f.shares.waiting(P0), "no wake left behind at the deadline");
    }

    @Test
    void handle_piggybackedAcknowledgements_appliedBeforeAcquiring_resultPerPartition() throws Exception {
        fetchNow((short) 1, fetch(0, 0, P0, P1));
        f.shares.acknowledgeAnswers(P1, new AcknowledgeResult(Errors.INVALID_RECORD_STATE, "not yours"));
        ShareFetchRequestData d = fetch(1, 0);
        partition(d, T, 0).acknowledgementBatches().add(new AcknowledgementBatch().setFirstOffset(0).setLastOffset(2)
                .setAcknowledgeTypes(List.of((byte) 1, (byte) 0, (byte) 3)));
        partition(d, T, 1).acknowledgementBatches().add(new AcknowledgementBatch().setFirstOffset(4).setLastOffset(4)
                .setAcknowledgeTypes(List.of((byte) 2)));
        f.shares.events.clear();
        ShareFetchResponseData r = fetchNow((short) 1, d);
        assertEquals(List.of("acknowledge 0", "acknowledge 1"), f.shares.events.subList(0, 2));
        assertTrue(f.shares.events.subList(2, f.shares.events.size()).stream().allMatch(e -> e.startsWith("acquire")));
        assertEquals(List.of(new Acknowledgement(0, 2, List.of((byte) 1, (byte) 0, (byte) 3))),
                f.shares.acknowledges.get(0).acks());
        assertEquals(Errors.NONE.code(), answer(r, T, 0).acknowledgeErrorCode());
        assertEquals(Errors.INVALID_RECORD_STATE.code(), answer(r, T, 1).acknowledgeErrorCode());
        assertEquals("not yours", answer(r, T, 1).acknowledgeErrorMessage());
    }

    @Test
    void handle_malformedAcknowledgements_invalidRequestForThatPartitionOnly() throws Exception {
        fetchNow((short) 2, fetch(0, 0, P0));
        ShareFetchRequestData d = fetch(1, 0);
        partition(d, T, 0).acknowledgementBatches().add(new AcknowledgementBatch().setFirstOffset(3).setLastOffset(2)
                .setAcknowledgeTypes(List.of((byte) 1)));
        partition(d, T, 1).acknowledgementBatches().add(new AcknowledgementBatch().setFirstOffset(0).setLastOffset(0)
                .setAcknowledgeTypes(List.of((byte) 4))); // renew without IsRenewAck
        partition(d, T, 2).acknowledgementBatches().add(new AcknowledgementBatch().setFirstOffset(0).setLastOffset(0)
                .setAcknowledgeTypes(List.of((byte) 1)));
        ShareFetchResponseData r = fetchNow((short) 2, d);
        assertEquals(Errors.INVALID_REQUEST.code(), answer(r, T, 0).acknowledgeErrorCode());
        assertEquals(Errors.INVALID_REQUEST.code(), answer(r, T, 1).acknowledgeErrorCode());
        assertEquals(Errors.NONE.code(), answer(r, T, 2).acknowledgeErrorCode());
        assertEquals(1, f.shares.acknowledges.size());
    }

    @Test
    void handle_partitionErrors_unknownTopicIdAndNotLeaderWithItsLeader() throws Exception {
        Uuid unknown = Uuid.randomUuid();
        f.shares.willAcquire(P2, Acquired.failed(Errors.NOT_LEADER_OR_FOLLOWER, null));
        ShareFetchRequestData d = fetch(0, 60_000, P2);
        partition(d, unknown, 0);
        ShareFetchResponseData r = fetchNow((short) 1, d);
        assertEquals(Errors.UNKNOWN_TOPIC_ID.code(), answer(r, unknown, 0).errorCode());
        PartitionData p2 = answer(r, T, 2);
        assertEquals(Errors.NOT_LEADER_OR_FOLLOWER.code(), p2.errorCode());
        assertEquals(new ShareFetchResponseData.LeaderIdAndEpoch().setLeaderId(2).setLeaderEpoch(9),
                p2.currentLeader());
        assertEquals(List.of(new ShareFetchResponseData.NodeEndpoint().setNodeId(2).setHost("10.0.0.2").setPort(9092)),
                List.copyOf(r.nodeEndpoints()));
        assertEquals(new ShareFetchResponseData.LeaderIdAndEpoch(), answer(r, unknown, 0).currentLeader(),
                "Kafka's default elsewhere");
    }

    @Test
    void handle_aRefusedPartition_isAnsweredAtOnceRatherThanAfterTheLongPoll() throws Exception {
        Uuid unknown = Uuid.randomUuid();
        ShareFetchRequestData d = fetch(0, 60_000, P0);
        partition(d, unknown, 0);
        ShareFetchResponseData r = fetchNow((short) 1, d); // within the 10 s bound, not after 60 s
        assertEquals(Errors.UNKNOWN_TOPIC_ID.code(), answer(r, unknown, 0).errorCode());
        assertNull(answer(r, T, 0));
        assertEquals(0, f.shares.waiting(P0));
    }

    @Test
    void handle_failingSharePartition_unknownServerErrorForItsPartition() throws Exception {
        ShareFetchHandler failing = new ShareFetchHandler(f.cache, new FakeSharePartitions() {
            @Override
            public CompletableFuture<Acquired> acquire(String g, String m, TopicIdPartition tp, int b, int n,
                    boolean l) {
                throw new IllegalStateException("bug");
            }
        }, f.sessions, f.settings, f.timer);
        ShareFetchResponseData r = ((ShareFetchResponse) failing.handle(ShareFixture.context(ApiKeys.SHARE_FETCH,
                (short) 1), new ShareFetchRequest.Builder(fetch(0, 60_000, P0)).build((short) 1))
                .get(10, TimeUnit.SECONDS)).data();
        assertEquals(Errors.UNKNOWN_SERVER_ERROR.code(), answer(r, T, 0).errorCode());
    }

    @Test
    void handle_authorization_groupForTheWholeRequest_topicPerPartition() throws Exception {
        ShareFetchResponseData denied = ((ShareFetchResponse) send(ShareFixture.restricted(ApiKeys.SHARE_FETCH,
                (short) 1, false), (short) 1, fetch(0, 0, P0)).get(10, TimeUnit.SECONDS)).data();
        assertEquals(Errors.GROUP_AUTHORIZATION_FAILED.code(), denied.errorCode());
        assertEquals(0, denied.acquisitionLockTimeoutMs());
        assertEquals(0, f.sessions.size(), "no session for a refused request");

        f.shares.willAcquire(P0, ShareFixture.acquired(0, 0));
        ShareFetchRequestData d = fetch(0, 0, P0);
        partition(d, SECRET, 0);
        ShareFetchResponseData r = ((ShareFetchResponse) send(ShareFixture.restricted(ApiKeys.SHARE_FETCH, (short) 1,
                true), (short) 1, d).get(10, TimeUnit.SECONDS)).data();
        assertEquals(Errors.NONE.code(), answer(r, T, 0).errorCode());
        assertEquals(Errors.TOPIC_AUTHORIZATION_FAILED.code(), answer(r, SECRET, 0).errorCode());
        assertTrue(f.shares.acquires.stream().noneMatch(a -> a.tp().topicId().equals(SECRET)));
    }

    @Test
    void handle_requestErrors_wholeResponse() throws Exception {
        ShareFetchRequestData acksInNewSession = fetch(0, 0);
        partition(acksInNewSession, T, 0).acknowledgementBatches().add(new AcknowledgementBatch().setFirstOffset(0)
                .setLastOffset(0).setAcknowledgeTypes(List.of((byte) 1)));
        assertEquals(Errors.INVALID_REQUEST.code(), fetchNow((short) 1, acksInNewSession).errorCode());
        assertEquals(Errors.INVALID_REQUEST.code(), fetchNow((short) 1, fetch(0, 0).setMemberId("")).errorCode());
        assertEquals(Errors.SHARE_SESSION_NOT_FOUND.code(), fetchNow((short) 1, fetch(3, 0)).errorCode());
        fetchNow((short) 1, fetch(0, 0));
        ShareFetchResponseData wrongEpoch = fetchNow((short) 1, fetch(2, 0));
        assertEquals(Errors.INVALID_SHARE_SESSION_EPOCH.code(), wrongEpoch.errorCode());
        assertEquals(0, wrongEpoch.acquisitionLockTimeoutMs());
        assertTrue(f.shares.acquires.isEmpty());
        // A renew-only fetch (v2 IsRenewAck) must not ask for records.
        assertEquals(Errors.INVALID_REQUEST.code(), fetchNow((short) 2, fetch(1, 0).setIsRenewAck(true)).errorCode());
    }

    @Test
    void handle_renewOnly_acknowledgesRenewAndAcquiresNothing() throws Exception {
        fetchNow((short) 2, fetch(0, 0, P0));
        ShareFetchRequestData d = new ShareFetchRequestData().setGroupId("g").setMemberId("m").setShareSessionEpoch(1)
                .setMaxBytes(0).setIsRenewAck(true);
        partition(d, T, 0).acknowledgementBatches().add(new AcknowledgementBatch().setFirstOffset(0).setLastOffset(1)
                .setAcknowledgeTypes(List.of((byte) 4)));
        f.shares.acquires.clear();
        ShareFetchResponseData r = fetchNow((short) 2, d);
        assertEquals(Errors.NONE.code(), answer(r, T, 0).acknowledgeErrorCode());
        assertEquals(ShareFixture.LOCK_MS, r.acquisitionLockTimeoutMs());
        assertEquals(List.of((byte) 4), f.shares.acknowledges.get(0).acks().get(0).types());
        assertTrue(f.shares.acquires.isEmpty());
    }

    @Test
    void handle_finalEpoch_acknowledgesThenReleasesTheMember_acquiresNothing() throws Exception {
        fetchNow((short) 1, fetch(0, 0, P0));
        ShareFetchRequestData d = fetch(-1, 60_000);
        partition(d, T, 0).acknowledgementBatches().add(new AcknowledgementBatch().setFirstOffset(0).setLastOffset(0)
                .setAcknowledgeTypes(List.of((byte) 1)));
        f.shares.events.clear();
        ShareFetchResponseData r = fetchNow((short) 1, d);
        assertEquals(List.of("acknowledge 0", "release m"), f.shares.events);
        assertEquals(Errors.NONE.code(), answer(r, T, 0).acknowledgeErrorCode());
        assertEquals(Errors.SHARE_SESSION_NOT_FOUND.code(), fetchNow((short) 1, fetch(1, 0)).errorCode());
    }

    /** Checks on recorded calls. */
    static final class FakeAssert {
        static void acquire(FakeSharePartitions.AcquireCall call, TopicIdPartition tp,
                int maxBytes, int maxRecords, boolean recordLimit) {
            assertEquals("g", call.groupId());
            assertEquals("m", call.memberId());
            assertEquals(tp.topicId(), call.tp().topicId());
            assertEquals(tp.partition(), call.tp().partition());
            assertEquals("t", call.tp().topic());
            assertEquals(maxBytes, call.maxBytes());
            assertEquals(maxRecords, call.maxRecords());
            assertEquals(recordLimit, call.recordLimit());
        }
    }
}

package io.aloft.broker.handler;

import static io.aloft.broker.handler.ShareFixture.P0;
import static io.aloft.broker.handler.ShareFixture.P2;
import static io.aloft.broker.handler.ShareFixture.SECRET;
import static io.aloft.broker.handler.ShareFixture.T;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.aloft.broker.api.RequestContext;
import io.aloft.broker.share.partition.AcknowledgeResult;
import io.aloft.broker.share.partition.Acknowledgement;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.ShareAcknowledgeRequestData;
import org.apache.kafka.common.message.ShareAcknowledgeRequestData.AcknowledgePartition;
import org.apache.kafka.common.message.ShareAcknowledgeRequestData.AcknowledgeTopic;
import org.apache.kafka.common.message.ShareAcknowledgeRequestData.AcknowledgementBatch;
import org.apache.kafka.common.message.ShareAcknowledgeResponseData;
import org.apache.kafka.common.message.ShareAcknowledgeResponseData.PartitionData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.ShareAcknowledgeRequest;
import org.apache.kafka.common.requests.ShareAcknowledgeResponse;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class ShareAcknowledgeHandlerTest {
    private final ShareFixture f = new ShareFixture();
    private final ShareAcknowledgeHandler handler = f.acknowledgeHandler();

    @AfterEach
    void close() {
        f.close();
    }

    private void openSession() throws Exception {
        f.fetchHandler().handle(ShareFixture.context(ApiKeys.SHARE_FETCH, (short) 1),
                new org.apache.kafka.common.requests.ShareFetchRequest.Builder(ShareFetchHandlerTest.fetch(0, 0, P0))
                        .build((short) 1)).get(10, TimeUnit.SECONDS);
    }

    static ShareAcknowledgeRequestData ack(int epoch) {
        return new ShareAcknowledgeRequestData().setGroupId("g").setMemberId("m").setShareSessionEpoch(epoch);
    }

    static AcknowledgePartition partition(ShareAcknowledgeRequestData d, Uuid topicId, int partition, long first,
            long last, Byte... types) {
        AcknowledgeTopic t = d.topics().find(topicId);
        if (t == null) {
            t = new AcknowledgeTopic().setTopicId(topicId);
            d.topics().add(t);
        }
        AcknowledgePartition p = new AcknowledgePartition().setPartitionIndex(partition);
        p.acknowledgementBatches().add(new AcknowledgementBatch().setFirstOffset(first).setLastOffset(last)
                .setAcknowledgeTypes(List.of(types)));
        t.partitions().add(p);
        return p;
    }

    private ShareAcknowledgeResponseData send(RequestContext context, short version, ShareAcknowledgeRequestData d)
            throws Exception {
        // As parsed from the wire: kafka-clients' builder refuses what a raw client may send (renew in v1).
        return ((ShareAcknowledgeResponse) handler.handle(context, new ShareAcknowledgeRequest(d, version))
                .get(10, TimeUnit.SECONDS)).data();
    }

    private ShareAcknowledgeResponseData send(short version, ShareAcknowledgeRequestData d) throws Exception {
        return send(ShareFixture.context(ApiKeys.SHARE_ACKNOWLEDGE, version), version, d);
    }

    private static PartitionData answer(ShareAcknowledgeResponseData r, Uuid topic, int partition) {
        return r.responses().find(topic).partitions().stream().filter(p -> p.partitionIndex() == partition)
                .findFirst().orElseThrow();
    }

    @Test
    void handle_acknowledgementsPerPartition_withTheirResults() throws Exception {
        openSession();
        f.shares.acknowledgeAnswers(P2, new AcknowledgeResult(Errors.NOT_LEADER_OR_FOLLOWER, null));
        ShareAcknowledgeRequestData d = ack(1);
        partition(d, T, 0, 0, 3, (byte) 1);
        partition(d, T, 2, 7, 8, (byte) 2, (byte) 3);
        Uuid unknown = Uuid.randomUuid();
        partition(d, unknown, 0, 0, 0, (byte) 1);
        ShareAcknowledgeResponseData r = send((short) 1, d);
        assertEquals(Errors.NONE.code(), r.errorCode());
        assertEquals(Errors.NONE.code(), answer(r, T, 0).errorCode());
        assertEquals(Errors.UNKNOWN_TOPIC_ID.code(), answer(r, unknown, 0).errorCode());
        PartitionData p2 = answer(r, T, 2);
        assertEquals(Errors.NOT_LEADER_OR_FOLLOWER.code(), p2.errorCode());
        assertEquals(new ShareAcknowledgeResponseData.LeaderIdAndEpoch().setLeaderId(2).setLeaderEpoch(9),
                p2.currentLeader());
        assertEquals(2, r.nodeEndpoints().find(2).nodeId());
        assertEquals(List.of(new Acknowledgement(0, 3, List.of((byte) 1))), f.shares.acknowledges.get(0).acks());
        assertEquals(List.of(new Acknowledgement(7, 8, List.of((byte) 2, (byte) 3))),
                f.shares.acknowledges.get(1).acks());
        assertEquals(2, f.shares.acknowledges.size());
        assertEquals(2, f.sessions.expectedEpoch("g", "m"));
    }

    @Test
    void handle_malformedBatches_invalidRequestAsKafka43() throws Exception {
        openSession();
        short v = 2;
        int epoch = 1;
        // Each case alone in its own request (Kafka 4.3.1 answers each of these 42, checked on raw frames).
        Byte[][] typeCases = {{(byte) 5}, {(byte) -1}, {(byte) 4}, {}};
        for (Byte[] types : typeCases) {
            ShareAcknowledgeRequestData d = ack(epoch++);
            partition(d, T, 0, 0, 0, types);
            assertEquals(Errors.INVALID_REQUEST.code(), answer(send(v, d), T, 0).errorCode(), List.of(types)
                    .toString());
        }
        ShareAcknowledgeRequestData backwards = ack(epoch++);
        partition(backwards, T, 0, 5, 3, (byte) 1);
        assertEquals(Errors.INVALID_REQUEST.code(), answer(send(v, backwards), T, 0).errorCode());
        ShareAcknowledgeRequestData wrongCount = ack(epoch++);
        partition(wrongCount, T, 0, 0, 3, (byte) 1, (byte) 1);
        assertEquals(Errors.INVALID_REQUEST.code(), answer(send(v, wrongCount), T, 0).errorCode());
        ShareAcknowledgeRequestData overlapping = ack(epoch++);
        partition(overlapping, T, 0, 0, 2, (byte) 1).acknowledgementBatches().add(new AcknowledgementBatch()
                .setFirstOffset(1).setLastOffset(4).setAcknowledgeTypes(List.of((byte) 1)));
        assertEquals(Errors.INVALID_REQUEST.code(), answer(send(v, overlapping), T, 0).errorCode());
        assertTrue(f.shares.acknowledges.isEmpty(), "none applied");

        ShareAcknowledgeRequestData touching = ack(epoch++); // a batch may start where the previous one ended
        partition(touching, T, 0, 0, 2, (byte) 0).acknowledgementBatches().add(new AcknowledgementBatch()
                .setFirstOffset(2).setLastOffset(4).setAcknowledgeTypes(List.of((byte) 1)));
        assertEquals(Errors.NONE.code(), answer(send(v, touching), T, 0).errorCode());
        ShareAcknowledgeRequestData renew = ack(epoch++).setIsRenewAck(true);
        partition(renew, T, 0, 0, 0, (byte) 4);
        ShareAcknowledgeResponseData renewed = send(v, renew);
        assertEquals(Errors.NONE.code(), answer(renewed, T, 0).errorCode());
        assertEquals(ShareFixture.LOCK_MS, renewed.acquisitionLockTimeoutMs(), "v2: how long the locks now last");
        ShareAcknowledgeRequestData renewV1 = ack(epoch++).setIsRenewAck(true);
        partition(renewV1, T, 0, 0, 0, (byte) 4);
        assertEquals(Errors.INVALID_REQUEST.code(), answer(send((short) 1, renewV1), T, 0).errorCode(),
                "no renew before v2");
    }

    @Test
    void handle_sessionErrors_wholeResponse() throws Exception {
        ShareAcknowledgeRequestData d = ack(0);
        partition(d, T, 0, 0, 0, (byte) 1);
        ShareAcknowledgeResponseData r = send((short) 2, d);
        assertEquals(Errors.INVALID_SHARE_SESSION_EPOCH.code(), r.errorCode(), "a ShareAcknowledge opens no session");
        assertEquals(0, r.acquisitionLockTimeoutMs());
        assertTrue(r.responses().isEmpty());
        assertEquals(Errors.SHARE_SESSION_NOT_FOUND.code(), send((short) 2, ack(1)).errorCode());
        assertEquals(Errors.SHARE_SESSION_NOT_FOUND.code(), send((short) 2, ack(-1)).errorCode());
        openSession();
        assertEquals(Errors.INVALID_SHARE_SESSION_EPOCH.code(), send((short) 1, ack(2)).errorCode());
        assertEquals(Errors.INVALID_REQUEST.code(), send((short) 1, ack(1).setMemberId("")).errorCode());
        assertTrue(f.shares.acknowledges.isEmpty());
    }

    @Test
    void handle_finalEpoch_appliesThenClosesAndReleases() throws Exception {
        openSession();
        ShareAcknowledgeRequestData d = ack(-1);
        partition(d, T, 0, 0, 0, (byte) 1);
        f.shares.events.clear();
        assertEquals(Errors.NONE.code(), answer(send((short) 1, d), T, 0).errorCode());
        assertEquals(List.of("acknowledge 0", "release m"), f.shares.events);
        assertEquals(0, f.sessions.size());
    }

    @Test
    void handle_authorization() throws Exception {
        openSession();
        ShareAcknowledgeRequestData d = ack(1);
        partition(d, T, 0, 0, 0, (byte) 1);
        partition(d, SECRET, 0, 0, 0, (byte) 1);
        ShareAcknowledgeResponseData denied = send(ShareFixture.restricted(ApiKeys.SHARE_ACKNOWLEDGE, (short) 1,
                false), (short) 1, d);
        assertEquals(Errors.GROUP_AUTHORIZATION_FAILED.code(), denied.errorCode());
        assertEquals(1, f.sessions.expectedEpoch("g", "m"), "a refused request takes no epoch");
        ShareAcknowledgeResponseData r = send(ShareFixture.restricted(ApiKeys.SHARE_ACKNOWLEDGE, (short) 1, true),
                (short) 1, d);
        assertEquals(Errors.NONE.code(), answer(r, T, 0).errorCode());
        assertEquals(Errors.TOPIC_AUTHORIZATION_FAILED.code(), answer(r, SECRET, 0).errorCode());
        assertEquals(1, f.shares.acknowledges.size());
    }
}

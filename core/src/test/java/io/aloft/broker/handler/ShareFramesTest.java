package io.aloft.broker.handler;

import static io.aloft.broker.handler.ShareFixture.P0;
import static io.aloft.broker.handler.ShareFixture.P2;
import static io.aloft.broker.handler.ShareFixture.T;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.aloft.broker.conformance.RawConnection;
import io.aloft.broker.share.partition.AcknowledgeResult;
import io.aloft.broker.share.partition.Acquired;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.message.ApiVersionsRequestData;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.message.ShareAcknowledgeRequestData;
import org.apache.kafka.common.message.ShareAcknowledgeResponseData;
import org.apache.kafka.common.message.ShareFetchRequestData;
import org.apache.kafka.common.message.ShareFetchResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.record.internal.Records;
import org.apache.kafka.common.requests.ShareFetchResponse;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * ShareFetch and ShareAcknowledge at every version they are served (v1, v2) through a real
 * network server and raw frames, each response parsed by kafka-clients' own
 * ShareFetchResponse / ShareAcknowledgeResponse at the request's version ({@link RawConnection}
 * fails on a frame that does not decode or leaves bytes over): records sent by reference from
 * the stored batches arrive as the batches they were.
 */
class ShareFramesTest {
    private final ShareFixture f = new ShareFixture();
    private ShareServer server;

    @BeforeEach
    void start() throws Exception {
        server = new ShareServer(f.fetchHandler(), f.acknowledgeHandler());
    }

    @AfterEach
    void close() {
        server.close();
        f.close();
    }

    @Test
    void apiVersions_servesV1ToV2() throws Exception {
        try (RawConnection c = RawConnection.open(server.bootstrap())) {
            ApiVersionsResponseData r = (ApiVersionsResponseData) c.send(ApiKeys.API_VERSIONS, (short) 3,
                    new ApiVersionsRequestData().setClientSoftwareName("t").setClientSoftwareVersion("1")).body();
            for (ApiKeys api : List.of(ApiKeys.SHARE_FETCH, ApiKeys.SHARE_ACKNOWLEDGE)) {
                assertEquals(1, r.apiKeys().find(api.id).minVersion());
                assertEquals(2, r.apiKeys().find(api.id).maxVersion());
            }
        }
    }

    @Test
    void everyVersion_fetchRecordsThenAcknowledge_parsedByKafkaClients() throws Exception {
        try (RawConnection c = RawConnection.open(server.bootstrap())) {
            for (short v = 1; v <= 2; v++) {
                String member = "member-v" + v;
                f.shares.willAcquire(P0, ShareFixture.acquired(10, 14));
                f.shares.willAcquire(P2, Acquired.failed(Errors.NOT_LEADER_OR_FOLLOWER, null));
                ShareFetchRequestData fetch = ShareFetchHandlerTest.fetch(0, 0, P0, P2).setMemberId(member);
                ShareFetchResponseData r = (ShareFetchResponseData) c.send(ApiKeys.SHARE_FETCH, v, fetch).body();
                assertEquals(Errors.NONE.code(), r.errorCode(), "v" + v);
                assertEquals(ShareFixture.LOCK_MS, r.acquisitionLockTimeoutMs());
                ShareFetchResponseData.PartitionData p0 = r.responses().find(T).partitions().stream()
                        .filter(p -> p.partitionIndex() == 0).findFirst().orElseThrow();
                List<Long> offsets = new ArrayList<>();
                for (RecordBatch b : ShareFetchResponse.recordsOrFail(p0).batches()) {
                    for (Record rec : b) {
                        offsets.add(rec.offset());
                    }
                }
                assertEquals(List.of(10L, 11L, 12L, 13L, 14L), offsets, "v" + v);
                assertEquals(14, p0.acquiredRecords().get(0).lastOffset());
                ShareFetchResponseData.PartitionData p2 = r.responses().find(T).partitions().stream()
                        .filter(p -> p.partitionIndex() == 2).findFirst().orElseThrow();
                assertEquals(Errors.NOT_LEADER_OR_FOLLOWER.code(), p2.errorCode());
                assertEquals(2, p2.currentLeader().leaderId());
                assertEquals("10.0.0.2", r.nodeEndpoints().find(2).host());
                assertTrue(((Records) p2.records()).sizeInBytes() == 0);

                f.shares.acknowledgeAnswers(P0, new AcknowledgeResult(Errors.INVALID_RECORD_STATE, "gone"));
                ShareAcknowledgeRequestData ack = ShareAcknowledgeHandlerTest.ack(1).setMemberId(member);
                ShareAcknowledgeHandlerTest.partition(ack, T, 0, 10, 14, (byte) 1);
                ShareAcknowledgeResponseData a = (ShareAcknowledgeResponseData) c.send(ApiKeys.SHARE_ACKNOWLEDGE, v,
                        ack).body();
                assertEquals(Errors.NONE.code(), a.errorCode());
                assertEquals(v >= 2 ? ShareFixture.LOCK_MS : 0, a.acquisitionLockTimeoutMs(), "v2 field only");
                ShareAcknowledgeResponseData.PartitionData ap = a.responses().find(T).partitions().get(0);
                assertEquals(Errors.INVALID_RECORD_STATE.code(), ap.errorCode());
                assertEquals("gone", ap.errorMessage());
                f.shares.acknowledgeAnswers(P0, AcknowledgeResult.OK);

                ShareAcknowledgeResponseData bad = (ShareAcknowledgeResponseData) c.send(ApiKeys.SHARE_ACKNOWLEDGE, v,
                        ShareAcknowledgeHandlerTest.ack(1).setMemberId(member)).body();
                assertEquals(Errors.INVALID_SHARE_SESSION_EPOCH.code(), bad.errorCode());
            }
        }
    }
}

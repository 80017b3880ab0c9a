package io.aloft.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.aloft.broker.conformance.RawConnection;
import io.aloft.broker.share.state.SharePartitionKey;
import io.aloft.broker.share.state.ShareState;
import io.aloft.broker.share.state.ShareStatePersister;
import io.aloft.broker.share.state.ShareStateSummary;
import io.aloft.broker.share.state.StateBatch;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.FencedStateEpochException;
import org.apache.kafka.common.message.ApiVersionsRequestData;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.message.FindCoordinatorRequestData;
import org.apache.kafka.common.message.FindCoordinatorResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Share-partition state kept through the broker's persister is in {@code __share_group_state}: the
 * persister makes the topic on its first call, and a restarted broker reads back what was written
 * (its coordinator reloads the partition from the log). With share groups off the state APIs are not
 * advertised, there is no persister, and share keys are refused. (With them on, AdvertisedVersionsTest
 * compares the advertised ranges with Kafka's.)
 */
class ShareStateDurabilityTest {
    @TempDir
    Path dir;

    private static <T> T await(java.util.concurrent.CompletableFuture<T> f) throws Exception {
        return f.get(30, TimeUnit.SECONDS);
    }

    private static StateBatch b(long first, long last, byte state, int count) {
        return new StateBatch(first, last, state, (short) count);
    }

    @Test
    void writtenState_isReadBack_afterRestart() throws Exception {
        TestBroker broker = new TestBroker(dir);
        SharePartitionKey key;
        ShareState expected;
        try {
            Uuid topicId;
            try (Admin admin = Admin.create(broker.clientProps())) {
                topicId = admin.createTopics(List.of(new NewTopic("share-durable", 2, (short) 1))).topicId(
                        "share-durable").get(30, TimeUnit.SECONDS);
            }
            key = new SharePartitionKey("durable-group", topicId, 1);
            ShareStatePersister persister = broker.broker().shareStatePersister();
            assertEquals(Optional.empty(), await(persister.read(key, 0)), "nothing before initialize");
            await(persister.initialize(key, 1, 0));
            await(persister.write(key, 1, 2, -1, 4, List.of(b(0, 9, StateBatch.ACKNOWLEDGED, 1),
                    b(10, 19, StateBatch.AVAILABLE, 2))));
            await(persister.write(key, 1, 2, 5, 3, List.of(b(12, 13, StateBatch.ARCHIVED, 5))));
            ExecutionException fenced = assertThrows(ExecutionException.class,
                    () -> await(persister.write(key, 0, 2, -1, -1, List.of())));
            assertInstanceOf(FencedStateEpochException.class, fenced.getCause());
            expected = new ShareState(1, 5, 2, List.of(b(5, 9, StateBatch.ACKNOWLEDGED, 1),
                    b(10, 11, StateBatch.AVAILABLE, 2), b(12, 13, StateBatch.ARCHIVED, 5),
                    b(14, 19, StateBatch.AVAILABLE, 2)));
            assertEquals(Optional.of(expected), await(persister.read(key, 2)));
            // Another key, deleted: its tombstone must survive the restart too.
            SharePartitionKey gone = new SharePartitionKey("durable-group", topicId, 0);
            await(persister.initialize(gone, 1, 7));
            await(persister.delete(gone));
        } finally {
            broker.close();
        }
        TestBroker restarted = broker.restart();
        try {
            ShareStatePersister persister = restarted.broker().shareStatePersister();
            assertEquals(Optional.of(expected), await(persister.read(key, 2)));
            assertEquals(Optional.of(new ShareStateSummary(1, 5, 2, 3)), await(persister.readSummary(key)));
            assertEquals(Optional.empty(), await(persister.read(new SharePartitionKey("durable-group", key.topicId(),
                    0), 0)));
        } finally {
            restarted.close();
        }
    }

    @Test
    void shareGroupsOff_noPersister_stateApisNotAdvertised_shareKeysRefused() throws Exception {
        try (TestBroker broker = new TestBroker(dir, Map.of("aloft.share.version", "0"));
                RawConnection c = RawConnection.open(broker.bootstrap())) {
            assertNull(broker.broker().shareStatePersister());
            ApiVersionsResponseData versions = (ApiVersionsResponseData) c.send(ApiKeys.API_VERSIONS, (short) 3,
                    new ApiVersionsRequestData().setClientSoftwareName("test").setClientSoftwareVersion("1")).body();
            for (ApiKeys api : List.of(ApiKeys.INITIALIZE_SHARE_GROUP_STATE, ApiKeys.READ_SHARE_GROUP_STATE,
                    ApiKeys.WRITE_SHARE_GROUP_STATE, ApiKeys.DELETE_SHARE_GROUP_STATE,
                    ApiKeys.READ_SHARE_GROUP_STATE_SUMMARY)) {
                assertNull(versions.apiKeys().find(api.id), api + " advertised with share groups off");
            }
            assertNotNull(versions.apiKeys().find(ApiKeys.FIND_COORDINATOR.id));
            FindCoordinatorResponseData r = (FindCoordinatorResponseData) c.send(ApiKeys.FIND_COORDINATOR, (short) 6,
                    new FindCoordinatorRequestData().setKeyType((byte) 2).setCoordinatorKeys(List.of(
                            "g:AAAAAAAAAAAAAAAAAAAAAQ:0"))).body();
            assertEquals(Errors.INVALID_REQUEST.code(), r.coordinators().get(0).errorCode());
        }
    }
}

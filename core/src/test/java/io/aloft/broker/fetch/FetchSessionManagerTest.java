package io.aloft.broker.fetch;

import static io.aloft.broker.fetch.FetchSessionKit.BY_NAMES;
import static io.aloft.broker.fetch.FetchSessionKit.LATEST;
import static io.aloft.broker.fetch.FetchSessionKit.partitionError;
import static io.aloft.broker.fetch.FetchSessionKit.partitions;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.aloft.broker.fetch.FetchSessionKit.Part;
import java.util.List;
import java.util.Set;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The session state machine of KIP-227: full, incremental, forget, final, and every error path. */
class FetchSessionManagerTest {
    private FetchSessionKit kit;

    @BeforeEach
    void setUp() {
        kit = new FetchSessionKit(10, 120_000);
        kit.createTopic("a", 3);
        kit.createTopic("b", 2);
    }

    private List<Part> allOfA() {
        return List.of(kit.part("a", 0, 0), kit.part("a", 1, 0), kit.part("a", 2, 0));
    }

    /** A full fetch of a-0..2 at offset 0 with epoch 0: the new session's id. */
    private int openSession(short version) {
        FetchResponseData r = kit.fetch(version, 0, 0, allOfA(), List.of());
        assertEquals(Errors.NONE.code(), r.errorCode());
        assertNotEquals(0, r.sessionId());
        return r.sessionId();
    }

    @Test
    void fullFetch_epochZero_createsSessionAndAnswersEveryPartition() {
        FetchResponseData r = kit.fetch(LATEST, 0, 0, allOfA(), List.of());
        assertEquals(101, r.sessionId());
        assertEquals(Set.of("a-0", "a-1", "a-2"), partitions(r));
        assertEquals(1, kit.cache.size());
        assertEquals(3, kit.cache.cachedPartitions());
        assertEquals(1, kit.cache.get(101).epoch(), "a new session expects epoch 1 next");
    }

    @Test
    void incremental_nothingNew_answersNoPartitionButReadsThemAll() {
        int id = openSession(LATEST);
        FetchResponseData r = kit.fetch(LATEST, id, 1, List.of(), List.of());
        assertEquals(Errors.NONE.code(), r.errorCode());
        assertEquals(id, r.sessionId());
        assertEquals(Set.of(), partitions(r));
        assertEquals(List.of("a-0", "a-1", "a-2"), kit.lastReadOrder());
        assertEquals(2, kit.cache.get(id).epoch());
    }

    @Test
    void incremental_newRecordsOnOnePartition_answersOnlyThatPartition() {
        int id = openSession(LATEST);
        kit.append("a", 1, 5);
        FetchResponseData r = kit.fetch(LATEST, id, 1, List.of(), List.of());
        assertEquals(Set.of("a-1"), partitions(r));
        // The client moves its position to 5; nothing new after that, so nothing is answered.
        r = kit.fetch(LATEST, id, 2, List.of(kit.part("a", 1, 5)), List.of());
        assertEquals(Set.of(), partitions(r));
        assertEquals(List.of("a-0", "a-2", "a-1"), kit.lastReadOrder(),
                "a partition that returned records is read last next time");
    }

    @Test
    void incremental_highWatermarkChangeWithoutRecords_isAnswered() {
        int id = openSession(LATEST);
        kit.append("a", 2, 3);
        // The client already fetches a-2 from offset 3 (say, it knew): no records, but a new high watermark.
        FetchResponseData r = kit.fetch(LATEST, id, 1, List.of(kit.part("a", 2, 3)), List.of());
        assertEquals(Set.of("a-2"), partitions(r));
        assertEquals(0, r.responses().get(0).partitions().get(0).records().sizeInBytes());
        assertEquals(Set.of(), partitions(kit.fetch(LATEST, id, 2, List.of(), List.of())));
    }

    @Test
    void incremental_addedPartition_isAnsweredOnceThenOnlyWithNews() {
        int id = openSession(LATEST);
        FetchResponseData r = kit.fetch(LATEST, id, 1, List.of(kit.part("b", 0, 0)), List.of());
        assertEquals(Set.of("b-0"), partitions(r), "a new partition's first answer always goes out");
        assertEquals(4, kit.cache.cachedPartitions());
        assertEquals(Set.of(), partitions(kit.fetch(LATEST, id, 2, List.of(), List.of())));
        kit.append("b", 0, 1);
        assertEquals(Set.of("b-0"), partitions(kit.fetch(LATEST, id, 3, List.of(), List.of())));
    }

    @Test
    void incremental_forgottenPartition_isNoLongerRead() {
        int id = openSession(LATEST);
        FetchResponseData r = kit.fetch(LATEST, id, 1, List.of(), List.of(kit.part("a", 0, 0)));
        assertEquals(Set.of(), partitions(r));
        assertEquals(List.of("a-1", "a-2"), kit.lastReadOrder());
        assertEquals(2, kit.cache.cachedPartitions());
        kit.append("a", 0, 4);
        assertEquals(Set.of(), partitions(kit.fetch(LATEST, id, 2, List.of(), List.of())));
    }

    @Test
    void incremental_everyPartitionForgotten_closesSessionAndAnswersWithoutOne() {
        int id = openSession(LATEST);
        FetchResponseData r = kit.fetch(LATEST, id, 1, List.of(), allOfA());
        assertEquals(Errors.NONE.code(), r.errorCode());
        assertEquals(0, r.sessionId());
        assertEquals(0, kit.cache.size());
        assertEquals(Errors.FETCH_SESSION_ID_NOT_FOUND.code(),
                kit.fetch(LATEST, id, 2, List.of(), List.of()).errorCode());
    }

    @Test
    void finalEpoch_closesSession_andAnswersFullWithoutSession() {
        int id = openSession(LATEST);
        FetchResponseData r = kit.fetch(LATEST, id, -1, allOfA(), List.of());
        assertEquals(0, r.sessionId());
        assertEquals(Set.of("a-0", "a-1", "a-2"), partitions(r));
        assertEquals(0, kit.cache.size());
        assertEquals(1, kit.stats.sessionsClosed());
        assertEquals(Errors.FETCH_SESSION_ID_NOT_FOUND.code(),
                kit.fetch(LATEST, id, 1, List.of(), List.of()).errorCode());
    }

    @Test
    void sessionlessFetch_zeroIdFinalEpoch_createsNothing() {
        FetchResponseData r = kit.fetch(LATEST, 0, -1, allOfA(), List.of());
        assertEquals(0, r.sessionId());
        assertEquals(3, partitions(r).size());
        assertEquals(0, kit.cache.size());
    }

    @Test
    void fullFetch_namingAnExistingSession_replacesIt() {
        int id = openSession(LATEST);
        FetchResponseData r = kit.fetch(LATEST, id, 0, List.of(kit.part("b", 1, 0)), List.of());
        assertNotEquals(0, r.sessionId());
        assertNotEquals(id, r.sessionId());
        assertEquals(Set.of("b-1"), partitions(r));
        assertEquals(1, kit.cache.size());
        assertEquals(Errors.FETCH_SESSION_ID_NOT_FOUND.code(),
                kit.fetch(LATEST, id, 1, List.of(), List.of()).errorCode());
        assertEquals(Errors.NONE.code(), kit.fetch(LATEST, r.sessionId(), 1, List.of(), List.of()).errorCode());
    }

    @Test
    void wrongEpoch_invalidFetchSessionEpoch_andTheSessionDoesNotMove() {
        int id = openSession(LATEST);
        kit.append("a", 0, 1);
        for (int epoch : new int[] {2, 0x7fff_ffff, -2}) {
            FetchResponseData r = kit.fetch(LATEST, id, epoch, List.of(kit.part("b", 0, 0)),
                    List.of(kit.part("a", 1, 0)));
            assertEquals(Errors.INVALID_FETCH_SESSION_EPOCH.code(), r.errorCode(), "epoch " + epoch);
            assertEquals(0, r.sessionId());
            assertTrue(r.responses().isEmpty());
        }
        assertEquals(3, kit.stats.invalidEpoch());
        assertEquals(3, kit.cache.cachedPartitions(), "the failed requests added and forgot nothing");
        FetchResponseData r = kit.fetch(LATEST, id, 1, List.of(), List.of());
        assertEquals(Errors.NONE.code(), r.errorCode());
        assertEquals(Set.of("a-0"), partitions(r));
    }

    @Test
    void unknownSessionId_fetchSessionIdNotFound() {
        FetchResponseData r = kit.fetch(LATEST, 4242, 1, List.of(kit.part("a", 0, 0)), List.of());
        assertEquals(Errors.FETCH_SESSION_ID_NOT_FOUND.code(), r.errorCode());
        assertEquals(0, r.sessionId());
        assertTrue(r.responses().isEmpty());
        assertTrue(kit.lastTargets.isEmpty(), "nothing is read");
        // An incremental epoch with session id 0 names no session either.
        assertEquals(Errors.FETCH_SESSION_ID_NOT_FOUND.code(),
                kit.fetch(LATEST, 0, 3, List.of(), List.of()).errorCode());
        assertEquals(2, kit.stats.sessionIdNotFound());
    }

    @Test
    void requestThatFailsBeforeItsResponse_leavesTheSessionAsItWas() {
        int id = openSession(LATEST);
        // Planned (b-0 added, a-0 forgotten), then the read fails: respond is never called.
        kit.plan(kit.request(LATEST, id, 1, List.of(kit.part("b", 0, 0)), List.of(kit.part("a", 0, 0))));
        assertEquals(1, kit.cache.get(id).epoch());
        assertEquals(3, kit.cache.cachedPartitions());
        // The client retries the same epoch: it works, on the session as it was.
        kit.append("a", 0, 2);
        FetchResponseData r = kit.fetch(LATEST, id, 1, List.of(), List.of());
        assertEquals(Errors.NONE.code(), r.errorCode());
        assertEquals(Set.of("a-0"), partitions(r));
        assertEquals(List.of("a-0", "a-1", "a-2"), kit.lastReadOrder());
    }

    @Test
    void duplicateRequestsWithOneEpoch_secondToAnswerGetsInvalidEpoch() {
        int id = openSession(LATEST);
        FetchPlan first = kit.plan(kit.request(LATEST, id, 1, List.of(), List.of()));
        FetchPlan second = kit.plan(kit.request(LATEST, id, 1, List.of(), List.of()));
        assertEquals(Errors.NONE.code(), kit.respond(first).errorCode());
        FetchResponseData r = kit.respond(second);
        assertEquals(Errors.INVALID_FETCH_SESSION_EPOCH.code(), r.errorCode());
        assertEquals(2, kit.cache.get(id).epoch());
    }

    @Test
    void partitionWithError_isAnsweredEveryTime_andOnceMoreWhenTheErrorClears() {
        FetchResponseData r = kit.fetch(BY_NAMES, 0, 0, List.of(kit.part("a", 0, 0), kit.part("c", 0, 0)), List.of());
        int id = r.sessionId();
        assertEquals(Errors.UNKNOWN_TOPIC_OR_PARTITION, partitionError(r, "c", 0));
        r = kit.fetch(BY_NAMES, id, 1, List.of(), List.of());
        assertEquals(Set.of("c-0"), partitions(r));
        assertEquals(Errors.UNKNOWN_TOPIC_OR_PARTITION, partitionError(r, "c", 0));
        kit.createTopic("c", 1);
        r = kit.fetch(BY_NAMES, id, 2, List.of(), List.of());
        assertEquals(Errors.NONE, partitionError(r, "c", 0), "answered once the error clears");
        assertEquals(Set.of(), partitions(kit.fetch(BY_NAMES, id, 3, List.of(), List.of())));
    }

    @Test
    void switchingBetweenTopicNamesAndIds_fetchSessionTopicIdError() {
        int byIds = openSession(LATEST);
        assertEquals(Errors.FETCH_SESSION_TOPIC_ID_ERROR.code(),
                kit.fetch(BY_NAMES, byIds, 1, List.of(), List.of()).errorCode());
        int byNames = openSession(BY_NAMES);
        assertEquals(Errors.FETCH_SESSION_TOPIC_ID_ERROR.code(),
                kit.fetch(LATEST, byNames, 1, List.of(), List.of()).errorCode());
        assertEquals(2, kit.stats.topicIdErrors());
        // Neither session moved.
        assertEquals(Errors.NONE.code(), kit.fetch(LATEST, byIds, 1, List.of(), List.of()).errorCode());
        assertEquals(Errors.NONE.code(), kit.fetch(BY_NAMES, byNames, 1, List.of(), List.of()).errorCode());
    }

    @Test
    void unknownTopicId_answeredUnknownTopicId_untilTheTopicIsKnown() {
        Uuid unknown = Uuid.randomUuid();
        FetchResponseData r = kit.fetch(LATEST, 0, 0, List.of(new Part("", unknown, 0, 0), kit.part("a", 0, 0)),
                List.of());
        int id = r.sessionId();
        assertNotEquals(0, id, "the session keeps the unknown partition, as Kafka's does");
        assertEquals(Errors.UNKNOWN_TOPIC_ID, partitionError(r, "", 0));
        r = kit.fetch(LATEST, id, 1, List.of(), List.of());
        assertEquals(Set.of("-0"), partitions(r));
        assertEquals(Errors.UNKNOWN_TOPIC_ID, partitionError(r, "", 0));
    }

    @Test
    void topicRecreatedWithNewId_oldIdInconsistent_newIdReadsTheNewTopic() {
        int id = openSession(LATEST);
        Uuid oldId = kit.id("a");
        kit.deleteTopic("a");
        Uuid newId = kit.createTopic("a", 3);
        kit.append("a", 0, 2);
        FetchResponseData r = kit.fetch(LATEST, id, 1, List.of(), List.of());
        assertEquals(3, r.responses().get(0).partitions().size());
        assertEquals(oldId, r.responses().get(0).topicId());
        assertEquals(Errors.INCONSISTENT_TOPIC_ID, partitionError(r, "a", 0), "the session knew the old id as a's");
        // What a client does once its metadata has the new id: add the new partitions, forget the old.
        List<Part> added = List.of(new Part("", newId, 0, 0), new Part("", newId, 1, 0), new Part("", newId, 2, 0));
        List<Part> forgotten = List.of(new Part("", oldId, 0, 0), new Part("", oldId, 1, 0), new Part("", oldId, 2, 0));
        r = kit.fetch(LATEST, id, 2, added, forgotten);
        assertEquals(1, r.responses().size());
        assertEquals(newId, r.responses().get(0).topicId());
        assertEquals(Set.of("a-0", "a-1", "a-2"), partitions(r));
        assertEquals(Errors.NONE, partitionError(r, "a", 0));
        assertTrue(r.responses().get(0).partitions().get(0).records().sizeInBytes() > 0);
        assertEquals(List.of("a-0", "a-1", "a-2"), kit.lastReadOrder());
        assertEquals(3, kit.cache.cachedPartitions());
    }

    @Test
    void topicDeleted_partitionsOfItsIdReadByTheirLastName() {
        int id = openSession(LATEST);
        kit.deleteTopic("a");
        FetchResponseData r = kit.fetch(LATEST, id, 1, List.of(), List.of());
        assertEquals(Set.of("a-0", "a-1", "a-2"), partitions(r));
        assertEquals(Errors.UNKNOWN_TOPIC_OR_PARTITION, partitionError(r, "a", 1));
        assertEquals(List.of("a-0", "a-1", "a-2"), kit.lastReadOrder());
    }

    @Test
    void incremental_metadataUnchanged_reusesTheTargets_metadataChanged_resolvesAgain() {
        int id = openSession(LATEST);
        kit.fetch(LATEST, id, 1, List.of(), List.of());
        List<FetchTarget> first = kit.lastTargets;
        kit.fetch(LATEST, id, 2, List.of(), List.of());
        for (int i = 0; i < first.size(); i++) {
            assertSame(first.get(i), kit.lastTargets.get(i), "same metadata, same target");
        }
        kit.fetch(LATEST, id, 3, List.of(kit.part("a", 1, 0)), List.of());
        assertNotSame(first.get(1), kit.lastTargets.get(1), "new fetch parameters, new target");
        assertSame(first.get(0), kit.lastTargets.get(0));
        kit.createTopic("c", 1);
        kit.fetch(LATEST, id, 4, List.of(), List.of());
        assertEquals(first.get(0), kit.lastTargets.get(0), "metadata changed: resolved again, to the same");
    }

    @Test
    void belowVersion7_neverASession() {
        FetchResponseData r = kit.fetch((short) 6, 0, 0, allOfA(), List.of());
        assertEquals(0, r.sessionId());
        assertEquals(3, partitions(r).size());
        assertEquals(0, kit.cache.size());
    }

    @Test
    void noSlots_everyFetchSessionless() {
        kit = new FetchSessionKit(0, 120_000);
        kit.createTopic("a", 3);
        FetchResponseData r = kit.fetch(LATEST, 0, 0, allOfA(), List.of());
        assertEquals(0, r.sessionId());
        assertEquals(3, partitions(r).size());
        assertEquals(0, kit.stats.sessionsCreated());
    }

    @Test
    void epoch_wrapsFromMaxValueToOne() {
        int id = openSession(LATEST);
        kit.cache.get(id).restartEpochAt(Integer.MAX_VALUE);
        assertEquals(Errors.NONE.code(), kit.fetch(LATEST, id, Integer.MAX_VALUE, List.of(), List.of()).errorCode());
        assertEquals(1, kit.cache.get(id).epoch());
        assertEquals(Errors.INVALID_FETCH_SESSION_EPOCH.code(),
                kit.fetch(LATEST, id, Integer.MIN_VALUE, List.of(), List.of()).errorCode());
        assertEquals(Errors.NONE.code(), kit.fetch(LATEST, id, 1, List.of(), List.of()).errorCode());
    }

    @Test
    void sessionByNames_keysByTopicName() {
        int id = openSession(BY_NAMES);
        kit.append("a", 2, 1);
        FetchResponseData r = kit.fetch(BY_NAMES, id, 1, List.of(kit.part("a", 0, 0)), List.of(kit.part("a", 1, 0)));
        assertEquals(Set.of("a-2"), partitions(r));
        assertEquals(List.of("a-0", "a-2"), kit.lastReadOrder());
        assertNull(partitionError(r, "a", 0));
    }
}

package io.aloft.broker.share.state;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.aloft.broker.coordinator.CoordinatorThreads;
import io.aloft.broker.coordinator.ManualTimer;
import io.aloft.broker.coordinator.MemoryCoordinatorLog;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.FencedLeaderEpochException;
import org.apache.kafka.common.errors.FencedStateEpochException;
import org.apache.kafka.common.errors.InvalidRequestException;
import org.apache.kafka.common.errors.NotCoordinatorException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The share coordinator's rules (as Kafka 4.3.1 answers the same calls) and its durability: every
 * change survives unloading and loading its partition again from the log. In memory, answers on return.
 */
class ShareCoordinatorTest {
    private static final int PARTITIONS = 3;
    private static final Uuid TOPIC = Uuid.randomUuid();
    private static final SharePartitionKey KEY = new SharePartitionKey("g", TOPIC, 0);

    private final MemoryCoordinatorLog<ShareStateRecord> log = new MemoryCoordinatorLog<>(ShareStateRecordSerde.INSTANCE);
    private final CoordinatorThreads threads = CoordinatorThreads.callerRuns();
    private ShareCoordinator coordinator;

    @BeforeEach
    void start() {
        coordinator = new ShareCoordinator(PARTITIONS, log, new ManualTimer(0), threads,
                id -> id.equals(TOPIC) ? 2 : -1);
        for (int p = 0; p < PARTITIONS; p++) {
            coordinator.loadPartition(p);
        }
    }

    @AfterEach
    void stop() {
        coordinator.close();
        threads.close();
    }

    private static <T> T get(CompletableFuture<T> f) throws Exception {
        assertTrue(f.isDone(), "answered on return");
        return f.get();
    }

    private static Throwable failure(CompletableFuture<?> f) {
        assertTrue(f.isDone(), "answered on return");
        try {
            f.get();
            throw new AssertionError("expected a failure, got " + f.join());
        } catch (ExecutionException e) {
            return e.getCause();
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
    }

    private static StateBatch b(long first, long last, byte state, int count) {
        return new StateBatch(first, last, state, (short) count);
    }

    private void reload() {
        int p = coordinator.partitionFor(KEY);
        coordinator.unloadPartition(p);
        coordinator.loadPartition(p);
    }

    @Test
    void initialize_thenRead_givesStartOffset_andRecordsLeaderEpoch() throws Exception {
        get(coordinator.initialize(KEY, 1, 5));
        assertEquals(Optional.of(new ShareState(1, 5, 0, List.of())), get(coordinator.read(KEY, -1)));
        assertEquals(Optional.of(new ShareState(1, 5, 3, List.of())), get(coordinator.read(KEY, 3)));
        assertInstanceOf(FencedLeaderEpochException.class, failure(coordinator.read(KEY, 2)));
        reload();
        assertEquals(3, get(coordinator.readSummary(KEY)).orElseThrow().leaderEpoch(), "the read's epoch is durable");
    }

    @Test
    void read_andSummary_ofNothing_areEmpty() throws Exception {
        assertEquals(Optional.empty(), get(coordinator.read(KEY, 0)));
        assertEquals(Optional.empty(), get(coordinator.readSummary(KEY)));
    }

    @Test
    void initialize_unknownTopicOrPartition_isRefused() {
        assertInstanceOf(UnknownTopicOrPartitionException.class,
                failure(coordinator.initialize(new SharePartitionKey("g", Uuid.randomUuid(), 0), 0, 0)));
        assertInstanceOf(UnknownTopicOrPartitionException.class,
                failure(coordinator.initialize(new SharePartitionKey("g", TOPIC, 2), 0, 0)));
    }

    @Test
    void initialize_olderStateEpoch_isFenced_sameOrNewerReplaces() throws Exception {
        get(coordinator.initialize(KEY, 2, 0));
        get(coordinator.write(KEY, 2, 1, -1, 3, List.of(b(0, 9, StateBatch.ACKNOWLEDGED, 1))));
        assertInstanceOf(FencedStateEpochException.class, failure(coordinator.initialize(KEY, 1, 100)));
        get(coordinator.initialize(KEY, 2, 50));
        assertEquals(new ShareState(2, 50, 0, List.of()), get(coordinator.read(KEY, -1)).orElseThrow());
        get(coordinator.initialize(KEY, 7, 100));
        assertEquals(new ShareStateSummary(7, 100, 0, 0), get(coordinator.readSummary(KEY)).orElseThrow());
        get(coordinator.initialize(KEY, 8, -1));
        assertEquals(new ShareStateSummary(8, -1, 0, -1), get(coordinator.readSummary(KEY)).orElseThrow(),
                "no start offset: nothing counted");
    }

    @Test
    void write_neverInitialized_isInvalidRequest() {
        assertInstanceOf(InvalidRequestException.class, failure(coordinator.write(KEY, 0, 0, 0, -1, List.of())));
    }

    @Test
    void write_batchAtTheLargestOffset_isInvalidRequest_andNothingChanges() throws Exception {
        get(coordinator.initialize(KEY, 1, 0));
        assertInstanceOf(InvalidRequestException.class, failure(coordinator.write(KEY, 1, 0, -1, -1, List.of(
                b(0, 1, StateBatch.ACKNOWLEDGED, 1), b(5, Long.MAX_VALUE, StateBatch.ARCHIVED, 1)))));
        assertEquals(List.of(), get(coordinator.read(KEY, -1)).orElseThrow().batches());
    }

    @Test
    void write_fencing_asKafka() throws Exception {
        get(coordinator.initialize(KEY, 1, 0));
        get(coordinator.read(KEY, 3));
        assertInstanceOf(FencedStateEpochException.class, failure(coordinator.write(KEY, 0, 3, -1, -1, List.of())));
        assertInstanceOf(FencedLeaderEpochException.class, failure(coordinator.write(KEY, 1, 2, -1, -1, List.of())));
        get(coordinator.write(KEY, 2, 3, -1, -1, List.of())); // a newer state epoch is taken, as Kafka takes it
        get(coordinator.write(KEY, 1, -1, -1, -1, List.of())); // -1: no leader check
        get(coordinator.write(KEY, -1, 4, -1, -1, List.of())); // -1: no state check
        assertEquals(new ShareStateSummary(1, 0, 3, -1), get(coordinator.readSummary(KEY)).orElseThrow(),
                "a write records neither epoch: the state epoch is the initialized one, the leader's the last read's");
    }

    @Test
    void writes_merge_andSurviveReload() throws Exception {
        get(coordinator.initialize(KEY, 1, 5));
        get(coordinator.write(KEY, 1, 3, -1, 10, List.of(b(5, 20, StateBatch.ACKNOWLEDGED, 1),
                b(21, 30, StateBatch.AVAILABLE, 1))));
        get(coordinator.write(KEY, 1, 3, 11, 8, List.of(b(10, 14, StateBatch.ARCHIVED, 3))));
        ShareState expected = new ShareState(1, 11, 3, List.of(b(11, 14, StateBatch.ARCHIVED, 3),
                b(15, 20, StateBatch.ACKNOWLEDGED, 1), b(21, 30, StateBatch.AVAILABLE, 1)));
        assertEquals(expected, get(coordinator.read(KEY, 3)).orElseThrow());
        reload();
        assertEquals(expected, get(coordinator.read(KEY, 3)).orElseThrow());
        assertEquals(new ShareStateSummary(1, 11, 3, 8), get(coordinator.readSummary(KEY)).orElseThrow());
    }

    @Test
    void delete_forgetsState_durably_andDeletingNothingIsFine() throws Exception {
        get(coordinator.delete(KEY));
        get(coordinator.initialize(KEY, 1, 5));
        SharePartitionKey other = new SharePartitionKey("g", TOPIC, 1);
        get(coordinator.initialize(other, 1, 6));
        get(coordinator.delete(KEY));
        assertEquals(Optional.empty(), get(coordinator.read(KEY, -1)));
        reload();
        coordinator.unloadPartition(coordinator.partitionFor(other));
        coordinator.loadPartition(coordinator.partitionFor(other));
        assertEquals(Optional.empty(), get(coordinator.read(KEY, -1)));
        assertEquals(6, get(coordinator.read(other, -1)).orElseThrow().startOffset(), "other keys are kept");
        assertInstanceOf(InvalidRequestException.class, failure(coordinator.write(KEY, 1, 0, -1, -1, List.of())));
    }

    @Test
    void partitionNotServed_isNotCoordinator() {
        coordinator.unloadPartition(coordinator.partitionFor(KEY));
        assertInstanceOf(NotCoordinatorException.class, failure(coordinator.read(KEY, 0)));
        assertInstanceOf(NotCoordinatorException.class, failure(coordinator.readSummary(KEY)));
    }

    @Test
    void partitionFor_isKafkasRule_onTheCoordinatorKey() {
        SharePartitionKey k = new SharePartitionKey("group", Uuid.fromString("AAAAAAAAAAAAAAAAAAAAAQ"), 0);
        assertEquals(Math.abs("group:AAAAAAAAAAAAAAAAAAAAAQ:0".hashCode()) % PARTITIONS, coordinator.partitionFor(k));
    }
}

package io.aloft.broker.share.state;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.aloft.broker.coordinator.CoordinatorThreads;
import io.aloft.broker.coordinator.ManualTimer;
import io.aloft.broker.coordinator.MemoryCoordinatorLog;
import io.aloft.broker.interbroker.InterBrokerClient;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.CoordinatorNotAvailableException;
import org.apache.kafka.common.errors.DisconnectException;
import org.apache.kafka.common.errors.FencedStateEpochException;
import org.apache.kafka.common.message.ReadShareGroupStateResponseData;
import org.apache.kafka.common.message.WriteShareGroupStateResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.ReadShareGroupStateRequest;
import org.apache.kafka.common.requests.ReadShareGroupStateResponse;
import org.apache.kafka.common.requests.WriteShareGroupStateRequest;
import org.apache.kafka.common.requests.WriteShareGroupStateResponse;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Routing and retries of the persister: to this broker's coordinator or another broker's, retrying
 * moves, loads and disconnects (routed afresh each time) within its bound, passing other errors on.
 * Another broker is a scripted {@link InterBrokerClient}; waits are bounded, nothing is timed.
 */
class RoutingShareStatePersisterTest {
    private static final int PARTITIONS = 1;
    private static final SharePartitionKey KEY = new SharePartitionKey("g", Uuid.randomUuid(), 0);

    private final ScheduledExecutorService executor = Executors.newSingleThreadScheduledExecutor();
    private final MemoryCoordinatorLog<ShareStateRecord> log = new MemoryCoordinatorLog<>(ShareStateRecordSerde.INSTANCE);
    private final CoordinatorThreads threads = CoordinatorThreads.callerRuns();
    private final ShareCoordinator local = new ShareCoordinator(PARTITIONS, log, new ManualTimer(0), threads,
            id -> id.equals(KEY.topicId()) ? 1 : -1);

    @AfterEach
    void stop() {
        executor.shutdownNow();
        local.close();
        threads.close();
    }

    /** Answers each request with the next scripted outcome; records which broker was asked. */
    private static final class ScriptedBroker implements InterBrokerClient {
        final Deque<Object> outcomes = new ArrayDeque<>();
        final List<Integer> asked = new ArrayList<>();
        final List<AbstractRequest> requests = new ArrayList<>();

        @Override
        public synchronized CompletableFuture<AbstractResponse> send(int brokerId, AbstractRequest.Builder<?> request) {
            asked.add(brokerId);
            requests.add(request.build(request.latestAllowedVersion()));
            Object next = outcomes.poll();
            if (next instanceof Throwable t) {
                return CompletableFuture.failedFuture(t);
            }
            return CompletableFuture.completedFuture((AbstractResponse) next);
        }

        @Override
        public void close() {
        }
    }

    private static ReadShareGroupStateResponse readAnswer(Errors error) {
        ReadShareGroupStateResponseData.PartitionResult p = new ReadShareGroupStateResponseData.PartitionResult()
                .setPartition(0).setErrorCode(error.code()).setStateEpoch(4).setStartOffset(10)
                .setStateBatches(List.of(new ReadShareGroupStateResponseData.StateBatch().setFirstOffset(10)
                        .setLastOffset(12).setDeliveryState(StateBatch.ACKNOWLEDGED).setDeliveryCount((short) 1)));
        return new ReadShareGroupStateResponse(new ReadShareGroupStateResponseData().setResults(List.of(
                new ReadShareGroupStateResponseData.ReadStateResult().setTopicId(KEY.topicId()).setPartitions(
                        List.of(p)))));
    }

    private static WriteShareGroupStateResponse writeAnswer(Errors error) {
        return new WriteShareGroupStateResponse(new WriteShareGroupStateResponseData().setResults(List.of(
                new WriteShareGroupStateResponseData.WriteStateResult().setTopicId(KEY.topicId()).setPartitions(
                        List.of(new WriteShareGroupStateResponseData.PartitionResult().setPartition(0)
                                .setErrorCode(error.code()))))));
    }

    private RoutingShareStatePersister persister(RoutingShareStatePersister.Leaders leaders, ScriptedBroker remote,
            Runnable createTopic, long retryTimeoutMs) {
        return new RoutingShareStatePersister(1, PARTITIONS, local, leaders, remote, createTopic, executor,
                System::currentTimeMillis, retryTimeoutMs);
    }

    private static Throwable failure(CompletableFuture<?> f) {
        return assertThrows(ExecutionException.class, () -> f.get(30, TimeUnit.SECONDS)).getCause();
    }

    @Test
    void remoteLeader_getsKafkasRequest_andItsAnswerIsParsed() throws Exception {
        ScriptedBroker remote = new ScriptedBroker();
        remote.outcomes.add(readAnswer(Errors.NONE));
        RoutingShareStatePersister p = persister(partition -> 2, remote, () -> { }, 10_000);
        assertEquals(Optional.of(new ShareState(4, 10, 7, List.of(new StateBatch(10, 12, StateBatch.ACKNOWLEDGED,
                (short) 1)))), p.read(KEY, 7).get(30, TimeUnit.SECONDS));
        assertEquals(List.of(2), remote.asked);
        ReadShareGroupStateRequest sent = (ReadShareGroupStateRequest) remote.requests.get(0);
        assertEquals("g", sent.data().groupId());
        assertEquals(7, sent.data().topics().get(0).partitions().get(0).leaderEpoch());
    }

    @Test
    void remoteUninitialized_isEmpty() throws Exception {
        ScriptedBroker remote = new ScriptedBroker();
        remote.outcomes.add(readAnswer(Errors.INVALID_REQUEST));
        assertEquals(Optional.empty(), persister(partition -> 2, remote, () -> { }, 10_000).read(KEY, 0)
                .get(30, TimeUnit.SECONDS));
    }

    @Test
    void movesLoadsAndDisconnects_areRetried_routedAfresh() throws Exception {
        ScriptedBroker remote = new ScriptedBroker();
        remote.outcomes.add(writeAnswer(Errors.COORDINATOR_LOAD_IN_PROGRESS));
        remote.outcomes.add(new DisconnectException("gone"));
        remote.outcomes.add(writeAnswer(Errors.NOT_COORDINATOR));
        remote.outcomes.add(writeAnswer(Errors.NONE));
        AtomicInteger calls = new AtomicInteger();
        // Broker 2, then 3 from the third attempt on: the partition moved.
        RoutingShareStatePersister p = persister(partition -> calls.incrementAndGet() < 3 ? 2 : 3, remote, () -> { },
                10_000);
        p.write(KEY, 1, 1, -1, -1, List.of()).get(30, TimeUnit.SECONDS);
        assertEquals(List.of(2, 2, 3, 3), remote.asked);
    }

    @Test
    void fencing_isPassedOn_notRetried() {
        ScriptedBroker remote = new ScriptedBroker();
        remote.outcomes.add(writeAnswer(Errors.FENCED_STATE_EPOCH));
        assertInstanceOf(FencedStateEpochException.class, failure(persister(partition -> 2, remote, () -> { }, 10_000)
                .write(KEY, 0, 1, -1, -1, List.of())));
        assertEquals(1, remote.asked.size());
    }

    @Test
    void noCoordinatorWithinTheBound_failsCoordinatorNotAvailable() {
        ScriptedBroker remote = new ScriptedBroker();
        for (int i = 0; i < 100; i++) {
            remote.outcomes.add(writeAnswer(Errors.NOT_COORDINATOR));
        }
        Throwable e = failure(persister(partition -> 2, remote, () -> { }, 300).write(KEY, 0, 1, -1, -1, List.of()));
        assertInstanceOf(CoordinatorNotAvailableException.class, e);
        assertTrue(e.getMessage().contains("NotCoordinatorException"), "names the last error: " + e.getMessage());
        assertTrue(remote.asked.size() >= 2, "retried before giving up: " + remote.asked);
    }

    @Test
    void missingTopic_isCreated_thenLocalCoordinatorServes() throws Exception {
        AtomicInteger created = new AtomicInteger();
        boolean[] exists = {false};
        RoutingShareStatePersister p = persister(partition -> exists[0] ? 1 : RoutingShareStatePersister.Leaders.NO_TOPIC,
                new ScriptedBroker(), () -> {
                    created.incrementAndGet();
                    local.loadPartition(0);
                    exists[0] = true;
                }, 10_000);
        p.initialize(KEY, 3, 5).get(30, TimeUnit.SECONDS);
        assertEquals(1, created.get());
        assertEquals(Optional.of(new ShareStateSummary(3, 5, 0, 0)), p.readSummary(KEY).get(30, TimeUnit.SECONDS));
    }
}

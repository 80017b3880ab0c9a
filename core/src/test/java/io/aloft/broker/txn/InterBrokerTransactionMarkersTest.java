package io.aloft.broker.txn;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.aloft.broker.interbroker.InterBrokerClient;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.DisconnectException;
import org.apache.kafka.common.message.WriteTxnMarkersRequestData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.WriteTxnMarkersRequest;
import org.apache.kafka.common.requests.WriteTxnMarkersResponse;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Routing, batching and retries of markers sent to other brokers, with a fake inter-broker client
 * the test answers by hand (every partition here is led by another broker than this one, 1).
 */
class InterBrokerTransactionMarkersTest {
    private static final String T = "orders";

    /** One request the markers sent, and its answer to give. */
    private record Sent(int broker, WriteTxnMarkersRequestData data, CompletableFuture<AbstractResponse> answer) {
        /** "pid:partition,partition;pid:..." of the request's markers, in request order. */
        String markers() {
            List<String> out = new ArrayList<>();
            for (WriteTxnMarkersRequestData.WritableTxnMarker m : data.markers()) {
                out.add(m.producerId() + ":" + m.topics().get(0).partitionIndexes());
            }
            return String.join(";", out);
        }

        /** Answers every partition of the request with {@code error}. */
        void answer(Errors error) {
            Map<Long, Map<TopicPartition, Errors>> errors = new HashMap<>();
            for (WriteTxnMarkersRequestData.WritableTxnMarker m : data.markers()) {
                for (WriteTxnMarkersRequestData.WritableTxnMarkerTopic t : m.topics()) {
                    for (int p : t.partitionIndexes()) {
                        errors.computeIfAbsent(m.producerId(), id -> new HashMap<>())
                                .put(new TopicPartition(t.name(), p), error);
                    }
                }
            }
            answer.complete(new WriteTxnMarkersResponse(errors));
        }
    }

    private final BlockingQueue<Sent> sent = new LinkedBlockingQueue<>();
    private final Map<TopicPartition, Integer> leaders = new ConcurrentHashMap<>();
    private final AtomicLong clock = new AtomicLong(1_000_000);
    private final ScheduledExecutorService thread = Executors.newSingleThreadScheduledExecutor();
    private final InterBrokerClient client = new InterBrokerClient() {
        @Override
        public CompletableFuture<AbstractResponse> send(int brokerId, AbstractRequest.Builder<?> request) {
            CompletableFuture<AbstractResponse> f = new CompletableFuture<>();
            sent.add(new Sent(brokerId, ((WriteTxnMarkersRequest.Builder) request).data, f));
            return f;
        }

        @Override
        public void close() {
        }
    };
    private final InterBrokerTransactionMarkers markers = new InterBrokerTransactionMarkers(1,
            tp -> leaders.getOrDefault(tp, InterBrokerTransactionMarkers.Leaders.NO_PARTITION), null, client, thread,
            clock::get);

    @AfterEach
    void stop() {
        thread.shutdownNow();
    }

    private CompletableFuture<Void> write(long pid, boolean commit, Integer... partitions) {
        return markers.write("tx-" + pid, pid, (short) 3, 7, commit, Map.of(T, List.of(partitions)), (short) 1);
    }

    private Sent next() throws InterruptedException {
        Sent s = sent.poll(10, TimeUnit.SECONDS);
        assertNotNull(s, "no request sent");
        return s;
    }

    private static void await(CompletableFuture<Void> f) throws Exception {
        f.get(10, TimeUnit.SECONDS);
    }

    @Test
    void markersForOneBroker_waitForTheRequestInFlight_thenGoTogetherInOne() throws Exception {
        for (int p = 0; p < 4; p++) {
            leaders.put(new TopicPartition(T, p), p == 2 ? 3 : 2);
        }
        CompletableFuture<Void> a = write(10, true, 0);
        Sent first = next();
        assertEquals(2, first.broker);
        assertEquals("10:[0]", first.markers());
        WriteTxnMarkersRequestData.WritableTxnMarker m = first.data.markers().get(0);
        assertEquals(3, m.producerEpoch());
        assertEquals(7, m.coordinatorEpoch());
        assertEquals(true, m.transactionResult());
        assertEquals(1, m.transactionVersion());

        CompletableFuture<Void> b = write(11, false, 1, 2); // 1 waits for broker 2, 2 goes to broker 3 at once
        CompletableFuture<Void> c = write(12, true, 3);
        Sent toThree = next();
        assertEquals(3, toThree.broker);
        assertEquals("11:[2]", toThree.markers());
        assertNull(sent.poll(200, TimeUnit.MILLISECONDS), "broker 2 has a request out: nothing more goes there");
        first.answer(Errors.NONE);
        await(a);
        Sent batch = next();
        assertEquals(2, batch.broker);
        assertEquals("11:[1];12:[3]", batch.markers(), "both transactions' markers in one request");
        batch.answer(Errors.NONE);
        await(c);
        assertFalse(b.isDone(), "partition 2 not answered yet");
        toThree.answer(Errors.NONE);
        await(b);
    }

    @Test
    void notLeader_isResentToTheNewLeader() throws Exception {
        TopicPartition tp = new TopicPartition(T, 0);
        leaders.put(tp, 2);
        CompletableFuture<Void> w = write(10, true, 0);
        Sent first = next();
        leaders.put(tp, 3); // the partition moved
        first.answer(Errors.NOT_LEADER_OR_FOLLOWER);
        Sent again = next();
        assertEquals(3, again.broker);
        again.answer(Errors.NONE);
        await(w);
    }

    @Test
    void brokerUnreachable_isRetried_untilItAnswers() throws Exception {
        leaders.put(new TopicPartition(T, 0), 2);
        CompletableFuture<Void> w = write(10, true, 0);
        next().answer.completeExceptionally(new DisconnectException("down"));
        next().answer.completeExceptionally(new org.apache.kafka.common.errors.TimeoutException("slow"));
        Sent third = next();
        assertEquals(2, third.broker);
        third.answer(Errors.NONE);
        await(w);
    }

    @Test
    void fencedOrStaleEpoch_isGivenUp_countedAsWritten() throws Exception {
        leaders.put(new TopicPartition(T, 0), 2);
        leaders.put(new TopicPartition(T, 1), 3);
        CompletableFuture<Void> w = write(10, true, 0, 1);
        Sent a = next();
        Sent b = next();
        (a.broker == 2 ? a : b).answer(Errors.TRANSACTION_COORDINATOR_FENCED);
        (a.broker == 2 ? b : a).answer(Errors.INVALID_PRODUCER_EPOCH);
        await(w);
        assertNull(sent.poll(300, TimeUnit.MILLISECONDS), "nothing resent");
    }

    @Test
    void deletedPartition_countsAsWritten_withoutARequest() throws Exception {
        await(write(10, true, 0)); // no leader entry: the partition does not exist
        assertNull(sent.poll(100, TimeUnit.MILLISECONDS));
    }

    @Test
    void noLeaderForAWhile_waits_thenSendsToTheNewOne() throws Exception {
        TopicPartition tp = new TopicPartition(T, 0);
        leaders.put(tp, InterBrokerTransactionMarkers.Leaders.NO_LEADER);
        CompletableFuture<Void> w = write(10, true, 0);
        assertNull(sent.poll(300, TimeUnit.MILLISECONDS));
        leaders.put(tp, 2);
        next().answer(Errors.NONE);
        await(w);
    }

    @Test
    void notWrittenByTheDeadline_failsTheWrite_forTheCoordinatorToAskAgain() throws Exception {
        leaders.put(new TopicPartition(T, 0), 2);
        CompletableFuture<Void> w = write(10, true, 0);
        Sent first = next();
        clock.addAndGet(InterBrokerTransactionMarkers.GIVE_UP_AFTER_MS);
        first.answer(Errors.NOT_LEADER_OR_FOLLOWER);
        ExecutionException e = assertThrows(ExecutionException.class, () -> w.get(10, TimeUnit.SECONDS));
        assertInstanceOf(InterBrokerTransactionMarkers.MarkerNotWrittenException.class, e.getCause());
    }
}

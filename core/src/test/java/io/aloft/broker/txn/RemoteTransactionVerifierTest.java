package io.aloft.broker.txn;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.aloft.broker.interbroker.InterBrokerClient;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.DisconnectException;
import org.apache.kafka.common.message.AddPartitionsToTxnRequestData.AddPartitionsToTxnTransaction;
import org.apache.kafka.common.message.AddPartitionsToTxnResponseData;
import org.apache.kafka.common.message.AddPartitionsToTxnResponseData.AddPartitionsToTxnResultCollection;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.AddPartitionsToTxnRequest;
import org.apache.kafka.common.requests.AddPartitionsToTxnResponse;
import org.junit.jupiter.api.Test;

/**
 * The partition side's question to a coordinator on another broker: one AddPartitionsToTxn v4+
 * transaction (verifyOnly as asked) to that broker, answered by the partition's code, or the
 * response's top-level code; an unreachable broker fails the future.
 */
class RemoteTransactionVerifierTest {
    private static final TopicPartition TP = new TopicPartition("t", 3);

    /** Answers each request with the next response, recording what was sent. */
    private static final class FakeClient implements InterBrokerClient {
        final List<AddPartitionsToTxnRequest> sent = new ArrayList<>();
        final List<Integer> to = new ArrayList<>();
        CompletableFuture<AbstractResponse> next;

        @Override
        public CompletableFuture<AbstractResponse> send(int brokerId, AbstractRequest.Builder<?> request) {
            to.add(brokerId);
            sent.add((AddPartitionsToTxnRequest) request.build(request.latestAllowedVersion()));
            return next;
        }

        @Override
        public void close() {
        }
    }

    private static AbstractResponse answer(Errors top, Map<TopicPartition, Errors> partitions) {
        AddPartitionsToTxnResultCollection results = new AddPartitionsToTxnResultCollection();
        if (!partitions.isEmpty()) {
            results.add(AddPartitionsToTxnResponse.resultForTransaction("tx", partitions));
        }
        return new AddPartitionsToTxnResponse(new AddPartitionsToTxnResponseData().setErrorCode(top.code())
                .setResultsByTransaction(results));
    }

    /** One partition's question; its code. */
    private static CompletableFuture<Errors> one(CoordinatorTransactionVerifier.RemoteCoordinators remote, int broker,
            long pid, short epoch, boolean verifyOnly) {
        return remote.addOrVerify(broker, "tx", pid, epoch, List.of(TP), verifyOnly).thenApply(m -> m.get(TP));
    }

    @Test
    void severalPartitions_oneRequestNamingThemAll_eachAnsweredByItsCode() throws Exception {
        FakeClient client = new FakeClient();
        CoordinatorTransactionVerifier.RemoteCoordinators remote = CoordinatorTransactionVerifier.over(client);
        TopicPartition other = new TopicPartition("u", 0);
        TopicPartition sibling = new TopicPartition("t", 5);
        client.next = CompletableFuture.completedFuture(answer(Errors.NONE,
                Map.of(TP, Errors.NONE, sibling, Errors.NONE, other, Errors.TRANSACTION_ABORTABLE)));
        Map<TopicPartition, Errors> answers = remote.addOrVerify(2, "tx", 9L, (short) 4, List.of(TP, other, sibling),
                false).get(10, TimeUnit.SECONDS);
        assertEquals(Map.of(TP, Errors.NONE, sibling, Errors.NONE, other, Errors.TRANSACTION_ABORTABLE), answers);
        assertEquals(1, client.sent.size(), "one request for the transaction's partitions");
        AddPartitionsToTxnTransaction txn = client.sent.get(0).data().transactions().find("tx");
        assertEquals(List.of(3, 5), txn.topics().find("t").partitions());
        assertEquals(List.of(0), txn.topics().find("u").partitions());
        assertEquals(false, txn.verifyOnly());
    }

    @Test
    void sendsOneBrokerFormTransaction_answersThePartitionsCode() throws Exception {
        FakeClient client = new FakeClient();
        CoordinatorTransactionVerifier.RemoteCoordinators remote = CoordinatorTransactionVerifier.over(client);
        client.next = CompletableFuture.completedFuture(answer(Errors.NONE, Map.of(TP, Errors.TRANSACTION_ABORTABLE)));
        assertEquals(Errors.TRANSACTION_ABORTABLE, one(remote, 2, 9L, (short) 4, true)
                .get(10, TimeUnit.SECONDS));
        AddPartitionsToTxnRequest request = client.sent.get(0);
        assertEquals(List.of(2), client.to);
        assertTrue(request.version() >= 4, "the broker-to-broker form");
        AddPartitionsToTxnTransaction txn = request.data().transactions().find("tx");
        assertEquals(9L, txn.producerId());
        assertEquals(4, txn.producerEpoch());
        assertTrue(txn.verifyOnly());
        assertEquals(List.of(3), txn.topics().find("t").partitions());

        client.next = CompletableFuture.completedFuture(answer(Errors.NONE, Map.of(TP, Errors.NONE)));
        assertEquals(Errors.NONE, one(remote, 2, 9L, (short) 4, false).get(10, TimeUnit.SECONDS));
        assertEquals(false, client.sent.get(1).data().transactions().find("tx").verifyOnly());
    }

    @Test
    void topLevelError_missingPartition_unreachable() throws Exception {
        FakeClient client = new FakeClient();
        CoordinatorTransactionVerifier.RemoteCoordinators remote = CoordinatorTransactionVerifier.over(client);
        client.next = CompletableFuture.completedFuture(answer(Errors.CLUSTER_AUTHORIZATION_FAILED, Map.of()));
        assertEquals(Errors.CLUSTER_AUTHORIZATION_FAILED, one(remote, 1, 1L, (short) 0, true)
                .get(10, TimeUnit.SECONDS));
        client.next = CompletableFuture.completedFuture(answer(Errors.NONE, Map.of()));
        assertEquals(Errors.UNKNOWN_SERVER_ERROR, one(remote, 1, 1L, (short) 0, true)
                .get(10, TimeUnit.SECONDS));
        client.next = CompletableFuture.failedFuture(new DisconnectException("gone"));
        ExecutionException e = org.junit.jupiter.api.Assertions.assertThrows(ExecutionException.class,
                () -> one(remote, 1, 1L, (short) 0, true).get(10, TimeUnit.SECONDS));
        assertTrue(e.getCause() instanceof DisconnectException, e.toString());
    }
}

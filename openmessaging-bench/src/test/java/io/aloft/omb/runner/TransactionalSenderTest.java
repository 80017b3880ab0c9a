package io.aloft.omb.runner;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;

/**
 * The transaction batching against kafka-clients' MockProducer, which enforces the transactional
 * client's state machine (begin before send, no commit without a transaction, nothing after a
 * fence): which calls are made, and what the stats count when they fail.
 */
class TransactionalSenderTest {
    private final List<MockProducer<byte[], byte[]>> clients = new ArrayList<>();
    private final RunStats stats = new RunStats();

    private MockProducer<byte[], byte[]> newClient() {
        MockProducer<byte[], byte[]> p = new MockProducer<>(true, null, new ByteArraySerializer(),
                new ByteArraySerializer());
        clients.add(p);
        return p;
    }

    private static ProducerRecord<byte[], byte[]> record() {
        return new ProducerRecord<>("t", 0, 1L, null, new byte[10]);
    }

    private static void send(TransactionalSender s, int n) {
        for (int i = 0; i < n; i++) {
            s.send(record(), 10, System.nanoTime());
        }
    }

    @Test
    void send_commitsEveryNMessages_andCountsMessagesOnlyWhenCommitted() {
        TransactionalSender s = new TransactionalSender(this::newClient, 3, stats);
        Window w = stats.open();
        send(s, 7);
        stats.close(w);

        MockProducer<byte[], byte[]> p = clients.get(0);
        assertTrue(p.transactionInitialized());
        assertEquals(2, p.commitCount(), "7 messages at 3 per transaction: two commits");
        assertTrue(p.transactionInFlight(), "the 7th message's transaction is open");
        assertEquals(7, p.history().size() + p.uncommittedRecords().size());
        assertEquals(6, w.sentMsgs, "messages count as published at the commit");
        assertEquals(60, w.sentBytes);
        assertEquals(2, w.committedTxns);
        assertEquals(2, w.commitLatencyMicros.getTotalCount());
        assertEquals(7, w.publishLatencyMicros.getTotalCount(), "every acknowledged send has a publish latency");
        assertEquals(0, w.sendErrors);

        s.finish();
        assertEquals(3, p.commitCount(), "finish commits the open transaction");
        assertEquals(7, stats.totalSent());
        assertEquals(3, stats.totalCommittedTxns());
        s.finish();
        assertEquals(3, p.commitCount(), "nothing open: nothing to commit");
        s.close(Duration.ZERO);
        assertTrue(p.closed());
        assertEquals(1, s.clientsCreated());
    }

    @Test
    void commitFailure_abortsAndCountsTheTransactionsMessagesAsErrors() {
        TransactionalSender s = new TransactionalSender(this::newClient, 4, stats);
        send(s, 4);
        MockProducer<byte[], byte[]> p = clients.get(0);
        p.commitTransactionException = new KafkaException("commit failed (abortable)");
        send(s, 4);

        assertTrue(p.transactionAborted(), "the failed transaction was aborted");
        assertEquals(4, stats.totalSent(), "only the first transaction counts as published");
        assertEquals(4, stats.totalErrors(), "the aborted transaction's messages are errors");
        assertEquals(1, stats.totalAbortedTxns());

        p.commitTransactionException = null;
        send(s, 4);
        assertEquals(8, stats.totalSent(), "the same client goes on after an abort");
        assertEquals(1, s.clientsCreated());
    }

    @Test
    void fencedProducer_isReplacedByANewClientWithoutStoppingTheRun() {
        TransactionalSender s = new TransactionalSender(this::newClient, 2, stats);
        send(s, 1);
        clients.get(0).fenceProducer(); // another client with the same transactional.id took over
        send(s, 1); // the commit fails fenced; the abort fails too: the client is discarded

        assertTrue(clients.get(0).closed(), "the fenced client was closed");
        assertEquals(1, stats.totalAbortedTxns());
        assertEquals(2, stats.totalErrors());
        send(s, 2);
        assertEquals(2, clients.size(), "a new client took over");
        assertEquals(2, s.clientsCreated());
        assertTrue(clients.get(1).transactionInitialized());
        assertEquals(1, clients.get(1).commitCount());
        assertEquals(2, stats.totalSent());
    }

    @Test
    void commitTimeout_isCountedAndTheClientReplaced() {
        TransactionalSender s = new TransactionalSender(this::newClient, 2, stats);
        send(s, 1);
        MockProducer<byte[], byte[]> p = clients.get(0);
        p.commitTransactionException = new TimeoutException("commit timed out");
        // After a commit timeout the real client allows only a retried commit; the abort's
        // failure is what makes the sender start over with a new client.
        p.abortTransactionException = new KafkaException("must retry commitTransaction");
        send(s, 1);
        assertEquals(2, stats.totalErrors());
        assertEquals(1, stats.totalAbortedTxns());
        assertTrue(p.closed());
        send(s, 2);
        assertEquals(2, s.clientsCreated());
        assertEquals(2, stats.totalSent());
    }

    @Test
    void sendThatThrows_abortsWithThatMessageCounted() {
        TransactionalSender s = new TransactionalSender(this::newClient, 5, stats);
        send(s, 2);
        MockProducer<byte[], byte[]> p = clients.get(0);
        p.sendException = new KafkaException("buffer exhausted");
        send(s, 1);
        assertEquals(3, stats.totalErrors(), "two sent plus the one whose send threw");
        assertTrue(p.transactionAborted());
        assertFalse(p.transactionInFlight());
        assertEquals(0, stats.totalSent());
    }

    @Test
    void initTransactionsFailure_countsAnErrorAndRetriesWithAFreshClient() {
        int[] calls = {0};
        TransactionalSender s = new TransactionalSender(() -> {
            MockProducer<byte[], byte[]> p = newClient();
            if (calls[0]++ == 0) {
                p.initTransactionException = new KafkaException("transactions not enabled on the broker");
            }
            return p;
        }, 2, stats);
        send(s, 1);
        assertEquals(1, stats.totalErrors(), "the message that could not be sent");
        assertTrue(clients.get(0).closed());
        send(s, 2);
        assertEquals(2, s.clientsCreated());
        assertEquals(2, stats.totalSent());
    }
}

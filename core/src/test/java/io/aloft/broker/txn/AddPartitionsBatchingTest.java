package io.aloft.broker.txn;

import static io.aloft.broker.txn.TxnTestKit.V2;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import io.aloft.broker.partition.TransactionCheck;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.message.DescribeTransactionsResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;

/**
 * Issue 16 (transaction version 2 performance): the partitions a produce request adds to a
 * transaction cost one durable {@code __transaction_state} write, not one each; adds of the same
 * transactional id that arrive while one of its writes is in flight go together as its next write
 * (a group commit), and answer only once that write is durable. Writes are counted at the log
 * (each add is one record there).
 */
class AddPartitionsBatchingTest {

    private final TxnTestKit kit = new TxnTestKit();

    private static final TopicPartition T0 = new TopicPartition("t", 0);
    private static final TopicPartition T1 = new TopicPartition("t", 1);
    private static final TopicPartition U0 = new TopicPartition("u", 0);

    private CompletableFuture<Errors> add(String id, ProducerResult p, String topic, int partition) {
        return kit.coordinator.addPartitionsToTxn(id, p.producerId(), p.producerEpoch(),
                Map.of(topic, List.of(partition)), V2);
    }

    private Set<TopicPartition> partitionsOf(String id) {
        Set<TopicPartition> out = new java.util.HashSet<>();
        for (DescribeTransactionsResponseData.TopicData t : kit.describe(id).topics()) {
            t.partitions().forEach(p -> out.add(new TopicPartition(t.topic(), p)));
        }
        return out;
    }

    @Test
    void verifierAdd_threePartitionsOfOneRequest_oneWrite() {
        ProducerResult p = kit.init("tx");
        // The local coordinator serves "tx": no metadata or remote brokers needed.
        CoordinatorTransactionVerifier verifier = new CoordinatorTransactionVerifier(kit.coordinator, null, 0, null,
                true);
        int before = kit.logSize();
        Map<TopicPartition, Errors> answers = verifier.checkAll("tx", p.producerId(), p.producerEpoch(),
                List.of(T0, T1, U0), TransactionCheck.ADD_PARTITION).join();
        assertEquals(Map.of(T0, Errors.NONE, T1, Errors.NONE, U0, Errors.NONE), answers);
        assertEquals(before + 1, kit.logSize(), "one write for the three partitions");
        assertEquals(Set.of(T0, T1, U0), partitionsOf("tx"));
        // A verify of the same partitions writes nothing and finds them all.
        assertEquals(Map.of(T0, Errors.NONE, T1, Errors.NONE, U0, Errors.NONE), verifier.checkAll("tx",
                p.producerId(), p.producerEpoch(), List.of(T0, T1, U0), TransactionCheck.VERIFY).join());
        assertEquals(before + 1, kit.logSize());
    }

    @Test
    void addsWhileAWriteIsInFlight_joinedAsTheNextWrite_answeredWhenDurable() {
        ProducerResult p = kit.init("tx");
        int before = kit.logSize();
        kit.log.hold();
        CompletableFuture<Errors> first = add("tx", p, "t", 0);
        CompletableFuture<Errors> second = add("tx", p, "t", 1);
        CompletableFuture<Errors> third = add("tx", p, "u", 0);
        assertEquals(1, kit.log.pending(), "the later adds wait for the first write");
        assertFalse(first.isDone() || second.isDone() || third.isDone(), "nothing answered before it is durable");
        kit.log.release();
        assertEquals(Errors.NONE, first.join());
        assertEquals(Errors.NONE, second.join());
        assertEquals(Errors.NONE, third.join());
        assertEquals(before + 2, kit.logSize(), "the first write, then one for the two that waited");
        assertEquals(Set.of(T0, T1, U0), partitionsOf("tx"));
    }

    @Test
    void joinedAdds_eachProducerGetsItsOwnAnswer_otherIdsNotHeld() {
        ProducerResult p = kit.init("tx");
        ProducerResult other = kit.init("other");
        kit.log.hold();
        CompletableFuture<Errors> first = add("tx", p, "t", 0);
        CompletableFuture<Errors> otherId = add("other", other, "t", 0);
        assertEquals(2, kit.log.pending(), "another transactional id is written at once");
        ProducerResult stale = ProducerResult.ok(p.producerId(), (short) (p.producerEpoch() - 1));
        CompletableFuture<Errors> fenced = add("tx", stale, "t", 1);
        CompletableFuture<Errors> current = add("tx", p, "u", 0);
        kit.log.release();
        assertEquals(Errors.NONE, first.join());
        assertEquals(Errors.NONE, otherId.join());
        assertEquals(Errors.PRODUCER_FENCED, fenced.join());
        assertEquals(Errors.NONE, current.join());
        assertEquals(Set.of(T0, U0), partitionsOf("tx"));
    }
}

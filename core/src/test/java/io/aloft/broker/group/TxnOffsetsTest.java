package io.aloft.broker.group;

import static io.aloft.broker.group.OffsetTest.commit;
import static io.aloft.broker.group.OffsetTest.fetch;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.message.DeleteGroupsRequestData;
import org.apache.kafka.common.message.OffsetDeleteRequestData;
import org.apache.kafka.common.message.OffsetFetchRequestData;
import org.apache.kafka.common.message.OffsetFetchResponseData;
import org.apache.kafka.common.message.TxnOffsetCommitRequestData;
import org.apache.kafka.common.message.TxnOffsetCommitRequestData.TxnOffsetCommitRequestPartition;
import org.apache.kafka.common.message.TxnOffsetCommitRequestData.TxnOffsetCommitRequestTopic;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;

/**
 * Transactional offsets in the group coordinator over an in-memory log: pending until their
 * producer's marker, which offset wins when regular and transactional commits of a partition mix
 * (the one written last, as Kafka decides), markers written twice, and OffsetDelete / DeleteGroups
 * with offsets pending; each checked again after a reload from the log.
 */
class TxnOffsetsTest {

    private static final String G = "txn-group";
    private static final String T = "orders";

    private static TxnOffsetCommitRequestData txnCommit(long producerId, String group, int partition, long offset) {
        return new TxnOffsetCommitRequestData().setTransactionalId("tx-" + producerId).setGroupId(group)
                .setProducerId(producerId).setProducerEpoch((short) 0).setTopics(List.of(
                        new TxnOffsetCommitRequestTopic().setName(T).setPartitions(List.of(
                                new TxnOffsetCommitRequestPartition().setPartitionIndex(partition)
                                        .setCommittedOffset(offset).setCommittedMetadata("txn")))));
    }

    private static void txn(GroupTestKit kit, long producerId, String group, int partition, long offset) {
        Errors e = Errors.forCode(kit.coordinator.txnCommitOffsets(txnCommit(producerId, group, partition, offset))
                .join().topics().get(0).partitions().get(0).errorCode());
        assertEquals(Errors.NONE, e);
    }

    private static void end(GroupTestKit kit, long producerId, String group, boolean commit) {
        TopicPartition offsets = new TopicPartition(PartitionGroupLog.TOPIC, kit.coordinator.partitionFor(group));
        kit.coordinator.completeTransaction(offsets, producerId, (short) 0, 0, commit).join();
    }

    /** The partition's answer to a require_stable fetch: its offset, or -2 for UNSTABLE_OFFSET_COMMIT. */
    private static long stable(GroupTestKit kit, String group, int partition) {
        OffsetFetchResponseData r = kit.coordinator.fetchOffsets(new OffsetFetchRequestData().setRequireStable(true)
                .setGroups(List.of(new OffsetFetchRequestData.OffsetFetchRequestGroup().setGroupId(group)
                        .setTopics(List.of(new OffsetFetchRequestData.OffsetFetchRequestTopics().setName(T)
                                .setPartitionIndexes(List.of(partition)))))), (short) 9).join();
        OffsetFetchResponseData.OffsetFetchResponsePartitions p = r.groups().get(0).topics().get(0).partitions()
                .get(0);
        return p.errorCode() == Errors.UNSTABLE_OFFSET_COMMIT.code() ? -2 : p.committedOffset();
    }

    @Test
    void pendingUntilCommit_thenVisible_markerTwiceChangesNothing_reloadAlike() {
        GroupTestKit kit = new GroupTestKit();
        txn(kit, 1, G, 0, 10);
        assertEquals(-1, fetch(kit.coordinator, G, T, 0));
        assertEquals(-2, stable(kit, G, 0));
        kit.restart(); // pending across a reload
        assertEquals(-1, fetch(kit.coordinator, G, T, 0));
        assertEquals(-2, stable(kit, G, 0));
        end(kit, 1, G, true);
        assertEquals(10, fetch(kit.coordinator, G, T, 0));
        assertEquals(10, stable(kit, G, 0));
        end(kit, 1, G, true);
        end(kit, 1, G, false); // a late ABORT of a decided transaction finds nothing pending
        assertEquals(10, fetch(kit.coordinator, G, T, 0));
        kit.restart();
        assertEquals(10, fetch(kit.coordinator, G, T, 0));
    }

    @Test
    void abort_dropsThePendingOffsets_theCommittedOneStays() {
        GroupTestKit kit = new GroupTestKit();
        kit.coordinator.commitOffsets(commit(G, "", -1, T, 0, 5), (short) 9).join();
        txn(kit, 1, G, 0, 10);
        end(kit, 1, G, false);
        assertEquals(5, fetch(kit.coordinator, G, T, 0));
        assertEquals(5, stable(kit, G, 0));
        kit.restart();
        assertEquals(5, fetch(kit.coordinator, G, T, 0));
        assertEquals(5, stable(kit, G, 0));
    }

    /** Kafka keeps the offset written last: a regular commit after the transactional one wins at COMMIT. */
    @Test
    void regularCommitAfterThePendingOne_winsWhenTheTransactionCommits() {
        GroupTestKit kit = new GroupTestKit();
        txn(kit, 1, G, 0, 10);
        kit.coordinator.commitOffsets(commit(G, "", -1, T, 0, 20), (short) 9).join();
        assertEquals(-2, stable(kit, G, 0)); // still pending: the transaction is undecided
        end(kit, 1, G, true);
        assertEquals(20, fetch(kit.coordinator, G, T, 0));
        kit.restart();
        assertEquals(20, fetch(kit.coordinator, G, T, 0));
    }

    /** Two transactions on one partition: the one written later wins, whichever commits first. */
    @Test
    void twoTransactions_theOneWrittenLaterWins_inEitherCommitOrder() {
        GroupTestKit kit = new GroupTestKit();
        txn(kit, 1, G, 0, 10);
        txn(kit, 2, G, 0, 15);
        end(kit, 2, G, true);
        assertEquals(15, fetch(kit.coordinator, G, T, 0));
        end(kit, 1, G, true);
        assertEquals(15, fetch(kit.coordinator, G, T, 0));

        txn(kit, 3, G, 1, 30);
        txn(kit, 4, G, 1, 40);
        end(kit, 3, G, true);
        assertEquals(30, fetch(kit.coordinator, G, T, 1));
        end(kit, 4, G, true);
        assertEquals(40, fetch(kit.coordinator, G, T, 1));
        kit.restart();
        assertEquals(15, fetch(kit.coordinator, G, T, 0));
        assertEquals(40, fetch(kit.coordinator, G, T, 1));
    }

    /** One marker ends the producer's offsets in every group of the partition. */
    @Test
    void oneMarker_endsTheProducersOffsetsInEveryGroupOfThePartition() {
        GroupTestKit kit = new GroupTestKit();
        String other = sameShardAs(kit, G);
        txn(kit, 1, G, 0, 10);
        txn(kit, 1, other, 0, 11);
        end(kit, 1, G, true);
        assertEquals(10, fetch(kit.coordinator, G, T, 0));
        assertEquals(11, fetch(kit.coordinator, other, T, 0));
    }

    @Test
    void offsetDelete_dropsPendingOffsetsToo_theCommitBringsNothingBack() {
        GroupTestKit kit = new GroupTestKit();
        txn(kit, 1, G, 0, 10);
        OffsetDeleteRequestData.OffsetDeleteRequestTopicCollection topics =
                new OffsetDeleteRequestData.OffsetDeleteRequestTopicCollection();
        topics.add(new OffsetDeleteRequestData.OffsetDeleteRequestTopic().setName(T).setPartitions(List.of(
                new OffsetDeleteRequestData.OffsetDeleteRequestPartition().setPartitionIndex(0))));
        assertEquals(Errors.NONE.code(), kit.coordinator.deleteOffsets(new OffsetDeleteRequestData().setGroupId(G)
                .setTopics(topics), (short) 0).join().errorCode());
        assertEquals(-1, stable(kit, G, 0));
        end(kit, 1, G, true);
        assertEquals(-1, fetch(kit.coordinator, G, T, 0));
        kit.restart();
        assertEquals(-1, stable(kit, G, 0));
    }

    @Test
    void deleteGroup_withPendingOffsets_goes_theCommitBringsNothingBack() {
        GroupTestKit kit = new GroupTestKit();
        txn(kit, 1, G, 0, 10);
        assertEquals(Errors.NONE.code(), kit.coordinator.deleteGroups(new DeleteGroupsRequestData()
                .setGroupsNames(List.of(G)), (short) 2).join().results().find(G).errorCode());
        end(kit, 1, G, true);
        assertEquals(-1, fetch(kit.coordinator, G, T, 0));
        kit.restart();
        assertEquals(-1, fetch(kit.coordinator, G, T, 0));
    }

    /** Kafka keeps an offset with a transaction pending on it past its retention, until the transaction ends. */
    @Test
    void retention_offsetWithATransactionPending_staysUntilTheTransactionEnds() {
        GroupTestKit kit = new GroupTestKit(Map.of(GroupCoordinatorConfig.OFFSETS_RETENTION_MINUTES_CONFIG, 1,
                GroupCoordinatorConfig.OFFSETS_RETENTION_CHECK_INTERVAL_MS_CONFIG, 10_000L));
        kit.coordinator.commitOffsets(commit(G, "", -1, T, 0, 5), (short) 9).join();
        kit.coordinator.commitOffsets(commit(G, "", -1, T, 1, 6), (short) 9).join();
        txn(kit, 1, G, 0, 10);
        kit.timer.advance(70_000);
        assertEquals(5, fetch(kit.coordinator, G, T, 0)); // kept: its transaction is undecided
        assertEquals(-1, fetch(kit.coordinator, G, T, 1)); // expired as usual
        end(kit, 1, G, true);
        assertEquals(10, fetch(kit.coordinator, G, T, 0));
    }

    /** The single-group OffsetFetch (v7, the last before groups) with require_stable. */
    @Test
    void offsetFetchV7_requireStable_unstableWhilePending() {
        GroupTestKit kit = new GroupTestKit();
        txn(kit, 1, G, 0, 10);
        OffsetFetchRequestData req = new OffsetFetchRequestData().setGroupId(G).setRequireStable(true)
                .setTopics(List.of(new OffsetFetchRequestData.OffsetFetchRequestTopic().setName(T)
                        .setPartitionIndexes(List.of(0))));
        assertEquals(Errors.UNSTABLE_OFFSET_COMMIT.code(), kit.coordinator.fetchOffsets(req, (short) 7).join()
                .topics().get(0).partitions().get(0).errorCode());
        assertEquals(Errors.NONE.code(), kit.coordinator.fetchOffsets(req.duplicate().setRequireStable(false),
                (short) 7).join().topics().get(0).partitions().get(0).errorCode());
        end(kit, 1, G, true);
        assertEquals(10, kit.coordinator.fetchOffsets(req, (short) 7).join().topics().get(0).partitions().get(0)
                .committedOffset());
    }

    private static String sameShardAs(GroupTestKit kit, String group) {
        for (int i = 0; ; i++) {
            String candidate = "other-" + i;
            if (kit.coordinator.partitionFor(candidate) == kit.coordinator.partitionFor(group)) {
                return candidate;
            }
        }
    }
}

package io.aloft.broker.conformance;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.kafka.common.message.AlterPartitionReassignmentsRequestData;
import org.apache.kafka.common.message.AlterPartitionReassignmentsRequestData.ReassignablePartition;
import org.apache.kafka.common.message.AlterPartitionReassignmentsRequestData.ReassignableTopic;
import org.apache.kafka.common.message.ListPartitionReassignmentsRequestData;
import org.apache.kafka.common.message.ListPartitionReassignmentsRequestData.ListPartitionReassignmentsTopics;
import org.apache.kafka.common.protocol.ApiKeys;

/**
 * AlterPartitionReassignments and ListPartitionReassignments on one node (id 1, on both targets):
 * a move to the broker that has the partition, and every refusal a single node can give (unknown
 * or negative broker, several replicas naming an unknown one, a duplicate, an empty list, a
 * cancellation with nothing in progress, unknown partition and topic); the list, whole and by topic.
 *
 * <p>Stateless.
 */
final class ReassignmentCases {
    private ReassignmentCases() {
    }

    static List<Shape> shapes() {
        List<Shape> shapes = new ArrayList<>();
        shapes.add(Shape.script(ApiKeys.ALTER_PARTITION_REASSIGNMENTS, "moves and refusals", 0, 1, (s, v) -> {
            String topic = "conf-moves-v" + v;
            s.target.createTopic(topic, 7);
            List<ReassignablePartition> partitions = List.of(
                    move(0, 1), move(1, 99), move(2, -1), move(3, 1, 99), move(4, 1, 1), move(5),
                    new ReassignablePartition().setPartitionIndex(6).setReplicas(null), move(9, 1));
            s.ask("", ApiKeys.ALTER_PARTITION_REASSIGNMENTS, v, new AlterPartitionReassignmentsRequestData()
                    .setTimeoutMs(30_000).setTopics(List.of(
                            new ReassignableTopic().setName(topic).setPartitions(partitions),
                            new ReassignableTopic().setName("conf-missing").setPartitions(List.of(move(0, 1))))));
        }));
        shapes.add(Shape.of(ApiKeys.ALTER_PARTITION_REASSIGNMENTS, "replication factor change not allowed", 1, 1,
                (t, v) -> new AlterPartitionReassignmentsRequestData().setTimeoutMs(30_000)
                        .setAllowReplicationFactorChange(false).setTopics(List.of(new ReassignableTopic()
                                .setName(Target.DATA).setPartitions(List.of(move(0, 1), move(1, 1, 99)))))));
        shapes.add(Shape.of(ApiKeys.LIST_PARTITION_REASSIGNMENTS, "all (null topics)",
                (t, v) -> new ListPartitionReassignmentsRequestData().setTimeoutMs(30_000).setTopics(null)));
        shapes.add(Shape.of(ApiKeys.LIST_PARTITION_REASSIGNMENTS, "some partitions",
                (t, v) -> new ListPartitionReassignmentsRequestData().setTimeoutMs(30_000).setTopics(List.of(
                        new ListPartitionReassignmentsTopics().setName(Target.DATA).setPartitionIndexes(List.of(0, 9)),
                        new ListPartitionReassignmentsTopics().setName("conf-missing")
                                .setPartitionIndexes(List.of(0))))));
        return shapes;
    }

    private static ReassignablePartition move(int partition, Integer... replicas) {
        return new ReassignablePartition().setPartitionIndex(partition).setReplicas(Arrays.asList(replicas));
    }
}

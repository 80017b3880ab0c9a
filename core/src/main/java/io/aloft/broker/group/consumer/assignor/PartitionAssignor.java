package io.aloft.broker.group.consumer.assignor;

import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.Uuid;

/**
 * A server-side assignor (KIP-848): computes a consumer group's target assignment from its members'
 * subscriptions and the subscribed topics' partition counts. Deterministic: the same input gives the
 * same output, whatever the iteration order of the maps. Implementations are stateless and
 * thread-safe.
 */
public interface PartitionAssignor {

    /** The name clients choose it by ({@code group.remote.assignor}). */
    String name();

    /**
     * The target assignment: member id to topic id to partitions; every member of {@code members}
     * is in the result (possibly with nothing), and no partition goes to two members or to a member
     * not subscribed to its topic.
     *
     * @param members member id to what it subscribes to and what it was assigned last time
     * @param partitionCounts topic id to its partition count, for every topic any member subscribes to
     */
    Map<String, Map<Uuid, Set<Integer>>> assign(Map<String, MemberSpec> members, Map<Uuid, Integer> partitionCounts);

    /**
     * One member as an assignor sees it.
     *
     * @param topics the subscribed topics that exist
     * @param current the member's previous target assignment, for stickiness
     */
    record MemberSpec(Set<Uuid> topics, Map<Uuid, Set<Integer>> current) {
        public MemberSpec {
            topics = Set.copyOf(topics);
            current = Map.copyOf(current);
        }
    }
}

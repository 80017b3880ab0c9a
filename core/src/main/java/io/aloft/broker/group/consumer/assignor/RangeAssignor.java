package io.aloft.broker.group.consumer.assignor;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.kafka.common.Uuid;

/**
 * {@code range}: for each topic on its own, the members subscribed to it (sorted by member id) get
 * contiguous ranges of its partitions, the first {@code partitions % members} one partition more.
 * Members subscribed to the same topics with the same partition counts get the same partition
 * numbers of each topic, which joins of co-partitioned topics rely on. Stateless.
 */
public final class RangeAssignor implements PartitionAssignor {

    public static final String NAME = "range";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public Map<String, Map<Uuid, Set<Integer>>> assign(Map<String, MemberSpec> members,
                                                       Map<Uuid, Integer> partitionCounts) {
        Map<String, Map<Uuid, Set<Integer>>> out = new TreeMap<>();
        members.keySet().forEach(id -> out.put(id, new TreeMap<>()));
        for (Map.Entry<Uuid, Integer> topic : new TreeMap<>(partitionCounts).entrySet()) {
            List<String> subscribers = new ArrayList<>();
            for (Map.Entry<String, MemberSpec> m : new TreeMap<>(members).entrySet()) {
                if (m.getValue().topics().contains(topic.getKey())) {
                    subscribers.add(m.getKey());
                }
            }
            if (subscribers.isEmpty()) {
                continue;
            }
            int partitions = topic.getValue();
            int each = partitions / subscribers.size();
            int extra = partitions % subscribers.size();
            int next = 0;
            for (int i = 0; i < subscribers.size(); i++) {
                int count = each + (i < extra ? 1 : 0);
                Set<Integer> range = new TreeSet<>();
                for (int p = next; p < next + count; p++) {
                    range.add(p);
                }
                next += count;
                if (!range.isEmpty()) {
                    out.get(subscribers.get(i)).put(topic.getKey(), range);
                }
            }
        }
        return out;
    }
}

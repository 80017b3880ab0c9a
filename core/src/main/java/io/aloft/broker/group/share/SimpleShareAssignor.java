package io.aloft.broker.group.share;

import io.aloft.broker.group.consumer.Assignment;
import io.aloft.broker.group.consumer.TopicMetadata;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.kafka.common.Uuid;

/**
 * The share group assignor (named "simple" as Kafka 4.3's). Each assignable partition (one whose
 * share state is initialized, as in Kafka) of a subscribed topic goes to members subscribed to that topic; a partition may go to several members, since a share
 * partition hands each record to one of them at a time. Per topic, in topic-name order:
 * <ul>
 *   <li>at least as many partitions as subscribers: each partition goes to one subscriber, the one
 *       with the fewest partitions so far across all topics (ties: the member id order), so the
 *       load evens out over topics;</li>
 *   <li>more subscribers than partitions: every subscriber gets one partition, the i-th (in member
 *       id order) partition {@code i % partitions}, so each partition has the same number of
 *       members, give or take one, and no member is left without work.</li>
 * </ul>
 * It is deterministic (the same members and topics give the same assignment) but not sticky: share
 * groups have no revocation, so a partition moving between members costs nothing but a new share
 * session. Stateless.
 */
public final class SimpleShareAssignor {

    public static final String NAME = "simple";

    private SimpleShareAssignor() {
    }

    /** {@link #assign(Map, Map, Assignment)} of every partition of the topics. */
    public static Map<String, Assignment> assign(Map<String, ? extends Set<String>> subscriptions,
                                                 Map<String, TopicMetadata> topics) {
        Map<Uuid, Set<Integer>> all = new HashMap<>();
        topics.values().forEach(t -> {
            Set<Integer> parts = new TreeSet<>();
            for (int p = 0; p < t.numPartitions(); p++) {
                parts.add(p);
            }
            all.put(t.id(), parts);
        });
        return assign(subscriptions, topics, Assignment.of(all));
    }

    /**
     * @param subscriptions member id to the topic names it subscribes to
     * @param topics the subscribed topics that exist, by name
     * @param assignable the partitions that may be assigned (those whose share state is initialized)
     * @return member id to its partitions, for every member (empty if nothing)
     */
    public static Map<String, Assignment> assign(Map<String, ? extends Set<String>> subscriptions,
                                                 Map<String, TopicMetadata> topics, Assignment assignable) {
        Map<String, Map<Uuid, Set<Integer>>> out = new TreeMap<>();
        Map<String, Integer> load = new HashMap<>();
        subscriptions.keySet().forEach(m -> {
            out.put(m, new HashMap<>());
            load.put(m, 0);
        });
        for (TopicMetadata t : new TreeMap<>(topics).values()) {
            List<String> subscribers = new ArrayList<>();
            new TreeMap<>(subscriptions).forEach((m, names) -> {
                if (names.contains(t.name())) {
                    subscribers.add(m);
                }
            });
            List<Integer> partitions = new ArrayList<>(assignable.partitions(t.id()));
            int n = partitions.size();
            if (subscribers.isEmpty() || n == 0) {
                continue;
            }
            if (subscribers.size() > n) {
                for (int i = 0; i < subscribers.size(); i++) {
                    give(out, load, subscribers.get(i), t.id(), partitions.get(i % n));
                }
            } else {
                for (int p : partitions) {
                    String least = subscribers.get(0);
                    for (String m : subscribers) {
                        if (load.get(m) < load.get(least)) {
                            least = m;
                        }
                    }
                    give(out, load, least, t.id(), p);
                }
            }
        }
        Map<String, Assignment> result = new TreeMap<>();
        out.forEach((m, a) -> result.put(m, Assignment.of(a)));
        return result;
    }

    private static void give(Map<String, Map<Uuid, Set<Integer>>> out, Map<String, Integer> load, String member,
                             Uuid topic, int partition) {
        out.get(member).computeIfAbsent(topic, x -> new TreeSet<>()).add(partition);
        load.merge(member, 1, Integer::sum);
    }
}

package io.aloft.broker.metadata;

import io.aloft.controller.client.MetadataWatcher;
import io.aloft.controller.model.BrokerInfo;
import io.aloft.controller.model.ClusterImage;
import io.aloft.controller.model.MetadataEvent;
import io.aloft.controller.model.PartitionInfo;
import io.aloft.controller.model.TopicInfo;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;

/**
 * This broker's view of brokers and topics, kept current by the controller's change feed (and by
 * the broker's own successful topic commands, so a client sees a topic it just created at once).
 * Readers get consistent immutable snapshots without locking.
 *
 * <p>Thread-safe: updates are serialised; reads see the latest published {@link View}.
 */
public final class MetadataCache implements MetadataWatcher.Listener {

    /** One consistent state of the cache. */
    public record View(Map<Integer, BrokerInfo> brokers, Map<String, TopicInfo> topicsByName,
            Map<UUID, TopicInfo> topicsById) {

        public TopicInfo topic(String name) {
            return topicsByName.get(name);
        }

        public TopicInfo topic(UUID id) {
            return topicsById.get(id);
        }
    }

    private volatile View view = new View(Map.of(), Map.of(), Map.of());
    private volatile boolean loaded;
    /** Told after a topic changed (through the change feed or this broker's own request); must not block. */
    private final List<Runnable> topicListeners = new java.util.concurrent.CopyOnWriteArrayList<>();

    /**
     * Registers {@code listener} to run, on the thread that published it, after every change that
     * touches a topic (moves included), from the controller's change feed or this broker's own
     * requests. It must return at once (hand work to an executor).
     */
    public void onTopicsChanged(Runnable listener) {
        topicListeners.add(listener);
    }

    public View view() {
        return view;
    }

    /** Whether the first image from the controller has arrived. */
    public boolean loaded() {
        return loaded;
    }

    @Override
    public synchronized void onImage(ClusterImage image) {
        Map<Integer, BrokerInfo> brokers = new TreeMap<>();
        image.brokers().forEach(b -> brokers.put(b.brokerId(), b));
        publish(brokers, image.topics());
        loaded = true;
        topicListeners.forEach(Runnable::run);
    }

    @Override
    public synchronized void onEvent(MetadataEvent e) {
        Map<Integer, BrokerInfo> brokers = new TreeMap<>(view.brokers());
        Map<UUID, TopicInfo> topics = new HashMap<>(view.topicsById());
        if (e.broker() != null) {
            brokers.put(e.broker().brokerId(), e.broker());
        }
        if (e.removedBrokerId() >= 0) {
            brokers.remove(e.removedBrokerId());
        }
        if (e.topic() != null) {
            topics.put(e.topic().topicId(), newer(topics.get(e.topic().topicId()), e.topic()));
        }
        if (e.deletedTopic() != null) {
            topics.remove(e.deletedTopic().topicId());
        }
        publish(brokers, topics.values());
        if (e.topic() != null || e.deletedTopic() != null) {
            topicListeners.forEach(Runnable::run);
        }
    }

    /** A topic this broker just created or changed (the change feed will confirm it). */
    public synchronized void putTopic(TopicInfo topic) {
        Map<UUID, TopicInfo> topics = new HashMap<>(view.topicsById());
        topics.put(topic.topicId(), newer(topics.get(topic.topicId()), topic));
        publish(new TreeMap<>(view.brokers()), topics.values());
        topicListeners.forEach(Runnable::run);
    }

    /** A topic this broker just deleted. */
    public synchronized void removeTopic(UUID topicId) {
        Map<UUID, TopicInfo> topics = new HashMap<>(view.topicsById());
        topics.remove(topicId);
        publish(new TreeMap<>(view.brokers()), topics.values());
    }

    /**
     * {@code incoming}, except that no partition goes back to a lower leader epoch. A topic this broker
     * just changed is put here from the controller's reply ({@link #putTopic}) before the change feed
     * has delivered the events of commands applied before it; one of those (another partition moved
     * by the same reassignment plan, say) carries this partition's older owner and epoch, and taking
     * it would make this broker serve a partition it has just released. Epochs only rise, so the
     * higher one is the later state.
     */
    private static TopicInfo newer(TopicInfo current, TopicInfo incoming) {
        if (current == null || !current.topicId().equals(incoming.topicId())) {
            return incoming;
        }
        List<PartitionInfo> merged = null;
        int common = Math.min(current.partitions().size(), incoming.partitions().size());
        for (int i = 0; i < common; i++) {
            PartitionInfo have = current.partitions().get(i);
            if (have.leaderEpoch() > incoming.partitions().get(i).leaderEpoch()) {
                if (merged == null) {
                    merged = new java.util.ArrayList<>(incoming.partitions());
                }
                merged.set(i, have);
            }
        }
        List<PartitionInfo> partitions = merged != null ? merged : incoming.partitions();
        if (current.partitions().size() > incoming.partitions().size()) {
            // Partitions only grow: an event older than a local CreatePartitions keeps the new ones.
            partitions = new java.util.ArrayList<>(partitions);
            partitions.addAll(current.partitions().subList(incoming.partitions().size(),
                    current.partitions().size()));
        }
        return partitions == incoming.partitions() ? incoming
                : new TopicInfo(incoming.topicId(), incoming.name(), incoming.configs(), partitions);
    }

    private void publish(Map<Integer, BrokerInfo> brokers, Collection<TopicInfo> topics) {
        // Iterated in name order (Metadata, DescribeLogDirs), but looked up on every produce and
        // fetch: a hash map filled in name order gives both (a tree map's string compares showed
        // in profiles with a thousand topics of long, common-prefixed names).
        List<TopicInfo> sorted = new java.util.ArrayList<>(topics);
        sorted.sort(java.util.Comparator.comparing(TopicInfo::name));
        Map<String, TopicInfo> byName = new java.util.LinkedHashMap<>();
        Map<UUID, TopicInfo> byId = new HashMap<>();
        for (TopicInfo t : sorted) {
            byName.put(t.name(), t);
            byId.put(t.topicId(), t);
        }
        view = new View(Map.copyOf(brokers), java.util.Collections.unmodifiableMap(byName), Map.copyOf(byId));
    }

    /** All topics in name order. */
    public List<TopicInfo> topics() {
        return List.copyOf(view.topicsByName().values());
    }
}

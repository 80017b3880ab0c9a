package io.aloft.controller.state;

import static io.aloft.controller.ControllerException.Code.BROKER_NOT_ACTIVE;
import static io.aloft.controller.ControllerException.Code.BROKER_NOT_FOUND;
import static io.aloft.controller.ControllerException.Code.INVALID_REQUEST;
import static io.aloft.controller.ControllerException.Code.PARTITION_NOT_FOUND;
import static io.aloft.controller.ControllerException.Code.STALE_BROKER_EPOCH;
import static io.aloft.controller.ControllerException.Code.TOPIC_EXISTS;
import static io.aloft.controller.ControllerException.Code.TOPIC_NOT_FOUND;

import io.aloft.controller.ControllerException;
import io.aloft.controller.command.AlterTopicConfigs;
import io.aloft.controller.command.BrokerHeartbeat;
import io.aloft.controller.command.CreatePartitions;
import io.aloft.controller.command.CreateTopic;
import io.aloft.controller.command.DrainBroker;
import io.aloft.controller.command.FenceBroker;
import io.aloft.controller.command.ReassignPartition;
import io.aloft.controller.command.RegisterBroker;
import io.aloft.controller.command.UnregisterBroker;
import io.aloft.controller.model.BrokerInfo;
import io.aloft.controller.model.BrokerState;
import io.aloft.controller.model.FeatureLevel;
import io.aloft.controller.model.MetadataEvent;
import io.aloft.controller.model.PartitionInfo;
import io.aloft.controller.model.TopicInfo;
import io.aloft.stream.metadata.CreateStreamRequest;
import io.aloft.stream.metadata.DeleteStreamRequest;
import io.aloft.stream.metadata.StreamInfo;
import io.aloft.stream.metadata.StreamMetadataException;
import io.aloft.stream.metadata.StreamMetadataState;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.UnaryOperator;
import java.util.regex.Pattern;

/**
 * Brokers, topics and partitions: the deterministic part of the controller state that is not
 * streams and objects. Like {@link StreamMetadataState}, every command validates first and then
 * applies with code that cannot fail, so a rejected command changes nothing.
 *
 * <h2>Placement</h2>
 * A partition goes to an {@link BrokerState#ACTIVE} broker chosen by {@link Placement} (its topic
 * spread over racks, then the fewest partitions, then the lowest id). When its broker is fenced,
 * drains or is unregistered it moves to another active broker chosen the same way; with none left
 * it waits with broker -1 and is placed when a broker becomes active. Every move raises the
 * partition's leader epoch.
 *
 * <p>Not thread-safe: confined to the state machine's apply thread (reads under its lock).
 */
final class ClusterState {

    /** Kafka's topic name rule. */
    private static final Pattern TOPIC_NAME = Pattern.compile("[a-zA-Z0-9._-]+");
    private static final int MAX_TOPIC_NAME_LENGTH = 249;
    /** Bounds on one command, so a single request cannot exhaust every replica's memory. */
    static final int MAX_PARTITIONS = 100_000;
    static final int MAX_STREAMS_PER_PARTITION = 16;

    private final StreamMetadataState streams;
    private final FeatureState features;
    private long nextBrokerEpoch;
    private final TreeMap<Integer, BrokerInfo> brokers = new TreeMap<>();
    private final TreeMap<UUID, TopicInfo> topics = new TreeMap<>();
    private final Map<String, UUID> topicIdsByName = new HashMap<>();

    ClusterState(StreamMetadataState streams, FeatureState features) {
        this.streams = streams;
        this.features = features;
    }

    // ---- brokers ----

    long register(RegisterBroker c, Consumer<MetadataEvent> events, long index) {
        BrokerInfo existing = brokers.get(c.brokerId());
        if (c.brokerId() < 0) {
            throw error(INVALID_REQUEST, "broker id " + c.brokerId() + " is negative");
        }
        if (existing != null && existing.incarnationId().equals(c.incarnationId())) {
            return existing.brokerEpoch(); // the same run registering again: nothing changes
        }
        features.requireSupported("broker " + c.brokerId(), c.supportedFeatures());
        BrokerInfo registered = new BrokerInfo(c.brokerId(), c.incarnationId(), nextBrokerEpoch++, c.endpoints(),
                c.rack(), BrokerState.ACTIVE, c.supportedFeatures());
        brokers.put(c.brokerId(), registered);
        events.accept(MetadataEvent.brokerChanged(index, registered));
        if (existing != null) {
            // A new run of the broker: whatever its last run held is gone, so its partitions get new epochs.
            updatePartitions(p -> p.brokerId() == c.brokerId(), topic -> p -> p.movedTo(c.brokerId()), events, index);
        }
        placeOffline(events, index);
        return registered.brokerEpoch();
    }

    BrokerState heartbeat(BrokerHeartbeat c, Consumer<MetadataEvent> events, long index) {
        BrokerInfo b = requireBroker(c.brokerId(), c.brokerEpoch());
        if (b.state() == BrokerState.FENCED) {
            // The level may have risen while it was fenced (fenced brokers do not hold an upgrade back):
            // a broker that cannot read the records written now stays fenced until it runs a newer build.
            features.requireSupported("broker " + b.brokerId(), b.supportedFeatures());
            BrokerInfo active = b.withState(BrokerState.ACTIVE);
            brokers.put(b.brokerId(), active);
            events.accept(MetadataEvent.brokerChanged(index, active));
            placeOffline(events, index);
            return BrokerState.ACTIVE;
        }
        return b.state();
    }

    void fence(FenceBroker c, Consumer<MetadataEvent> events, long index) {
        BrokerInfo b = requireBroker(c.brokerId(), c.brokerEpoch());
        if (b.state() == BrokerState.FENCED) {
            return;
        }
        BrokerInfo fenced = b.withState(BrokerState.FENCED);
        brokers.put(b.brokerId(), fenced);
        events.accept(MetadataEvent.brokerChanged(index, fenced));
        moveAwayFrom(b.brokerId(), events, index);
    }

    void drain(DrainBroker c, Consumer<MetadataEvent> events, long index) {
        BrokerInfo b = requireBroker(c.brokerId(), c.brokerEpoch());
        if (b.state() == BrokerState.DRAINING) {
            return;
        }
        BrokerInfo draining = b.withState(BrokerState.DRAINING);
        brokers.put(b.brokerId(), draining);
        events.accept(MetadataEvent.brokerChanged(index, draining));
        moveAwayFrom(b.brokerId(), events, index);
    }

    void unregister(UnregisterBroker c, Consumer<MetadataEvent> events, long index) {
        if (brokers.remove(c.brokerId()) == null) {
            throw error(BROKER_NOT_FOUND, "broker " + c.brokerId() + " is not registered");
        }
        events.accept(MetadataEvent.brokerRemoved(index, c.brokerId()));
        moveAwayFrom(c.brokerId(), events, index);
    }

    private BrokerInfo requireBroker(int brokerId, long brokerEpoch) {
        BrokerInfo b = brokers.get(brokerId);
        if (b == null) {
            throw error(BROKER_NOT_FOUND, "broker " + brokerId + " is not registered");
        }
        if (b.brokerEpoch() != brokerEpoch) {
            throw error(STALE_BROKER_EPOCH, "broker " + brokerId + " epoch " + brokerEpoch + " is not its current "
                    + b.brokerEpoch());
        }
        return b;
    }

    // ---- topics ----

    TopicInfo createTopic(CreateTopic c, Consumer<MetadataEvent> events, long index) {
        validateTopicName(c.name());
        if (topicIdsByName.containsKey(c.name())) {
            throw error(TOPIC_EXISTS, "topic " + c.name() + " already exists");
        }
        if (topics.containsKey(c.topicId())) {
            throw error(INVALID_REQUEST, "topic id " + c.topicId() + " is already in use");
        }
        validatePartitionCount(c.partitions());
        if (c.streamsPerPartition() < 1 || c.streamsPerPartition() > MAX_STREAMS_PER_PARTITION) {
            throw error(INVALID_REQUEST, "streams per partition " + c.streamsPerPartition() + " is outside [1, "
                    + MAX_STREAMS_PER_PARTITION + "]");
        }
        validateConfigs(c.configs().keySet());
        Placement placement = Placement.of(brokers.values(), topics.values(), rackAware());
        Placement.Spread spread = placement.spread(List.of());
        List<PartitionInfo> partitions = new ArrayList<>(c.partitions());
        for (int i = 0; i < c.partitions(); i++) {
            partitions.add(newPartition(i, c.streamsPerPartition(), placement.place(spread, -1)));
        }
        TopicInfo topic = new TopicInfo(c.topicId(), c.name(), c.configs(), partitions);
        putTopic(topic, events, index);
        return topic;
    }

    void deleteTopic(String name, Consumer<MetadataEvent> events, long index) {
        TopicInfo topic = requireTopic(name);
        for (PartitionInfo p : topic.partitions()) {
            for (long streamId : p.streamIds()) {
                StreamInfo s;
                try {
                    s = streams.describeStream(streamId);
                } catch (StreamMetadataException e) {
                    continue; // deleted directly already: nothing left to release
                }
                streams.deleteStream(new DeleteStreamRequest(streamId, s.epoch()));
            }
        }
        topics.remove(topic.topicId());
        topicIdsByName.remove(name);
        events.accept(MetadataEvent.topicDeleted(index, topic));
    }

    TopicInfo createPartitions(CreatePartitions c, Consumer<MetadataEvent> events, long index) {
        TopicInfo topic = requireTopic(c.name());
        int current = topic.partitions().size();
        if (c.totalCount() <= current) {
            throw error(INVALID_REQUEST, "topic " + c.name() + " has " + current + " partitions; the new count "
                    + c.totalCount() + " must be larger");
        }
        validatePartitionCount(c.totalCount());
        int streamsPerPartition = topic.partitions().get(0).streamIds().size();
        Placement placement = Placement.of(brokers.values(), topics.values(), rackAware());
        Placement.Spread spread = placement.spread(topic.partitions());
        List<PartitionInfo> partitions = new ArrayList<>(topic.partitions());
        for (int i = current; i < c.totalCount(); i++) {
            partitions.add(newPartition(i, streamsPerPartition, placement.place(spread, -1)));
        }
        TopicInfo grown = new TopicInfo(topic.topicId(), topic.name(), topic.configs(), partitions);
        putTopic(grown, events, index);
        return grown;
    }

    TopicInfo alterConfigs(AlterTopicConfigs c, Consumer<MetadataEvent> events, long index) {
        TopicInfo topic = requireTopic(c.name());
        validateConfigs(c.set().keySet());
        Map<String, String> configs = new TreeMap<>(topic.configs());
        c.delete().forEach(configs::remove);
        configs.putAll(c.set());
        TopicInfo altered = new TopicInfo(topic.topicId(), topic.name(), configs, topic.partitions());
        putTopic(altered, events, index);
        return altered;
    }

    TopicInfo reassign(ReassignPartition c, Consumer<MetadataEvent> events, long index) {
        TopicInfo topic = requireTopic(c.name());
        if (c.partition() < 0 || c.partition() >= topic.partitions().size()) {
            throw error(PARTITION_NOT_FOUND, "topic " + c.name() + " has no partition " + c.partition());
        }
        BrokerInfo target = brokers.get(c.targetBrokerId());
        if (target == null) {
            throw error(BROKER_NOT_FOUND, "broker " + c.targetBrokerId() + " is not registered");
        }
        if (target.state() != BrokerState.ACTIVE) {
            throw error(BROKER_NOT_ACTIVE, "broker " + c.targetBrokerId() + " is " + target.state());
        }
        PartitionInfo p = topic.partitions().get(c.partition());
        if (p.brokerId() == c.targetBrokerId()) {
            return topic;
        }
        List<PartitionInfo> partitions = new ArrayList<>(topic.partitions());
        partitions.set(c.partition(), p.movedTo(c.targetBrokerId()));
        TopicInfo moved = new TopicInfo(topic.topicId(), topic.name(), topic.configs(), partitions);
        putTopic(moved, events, index);
        return moved;
    }

    private PartitionInfo newPartition(int partition, int streamCount, int broker) {
        List<Long> streamIds = new ArrayList<>(streamCount);
        for (int s = 0; s < streamCount; s++) {
            streamIds.add(streams.createStream(new CreateStreamRequest(-1)));
        }
        return new PartitionInfo(partition, broker, 0, streamIds);
    }

    private TopicInfo requireTopic(String name) {
        UUID id = name == null ? null : topicIdsByName.get(name);
        if (id == null) {
            throw error(TOPIC_NOT_FOUND, "topic " + name + " does not exist");
        }
        return topics.get(id);
    }

    private static void validateTopicName(String name) {
        if (name.isEmpty() || name.length() > MAX_TOPIC_NAME_LENGTH || name.equals(".") || name.equals("..")
                || !TOPIC_NAME.matcher(name).matches()) {
            throw error(INVALID_REQUEST, "illegal topic name '" + name + "': 1 to " + MAX_TOPIC_NAME_LENGTH
                    + " of [a-zA-Z0-9._-], not '.' or '..'");
        }
    }

    private static void validatePartitionCount(int count) {
        if (count < 1 || count > MAX_PARTITIONS) {
            throw error(INVALID_REQUEST, "partition count " + count + " is outside [1, " + MAX_PARTITIONS + "]");
        }
    }

    private static void validateConfigs(Collection<String> keys) {
        for (String key : keys) {
            if (key == null || key.isEmpty()) {
                throw error(INVALID_REQUEST, "empty topic config key");
            }
        }
    }

    // ---- placement ----

    /** Moves every partition of {@code brokerId} to other active brokers (or offline when there are none). */
    private void moveAwayFrom(int brokerId, Consumer<MetadataEvent> events, long index) {
        Placement placement = Placement.of(brokers.values(), topics.values(), rackAware());
        updatePartitions(p -> p.brokerId() == brokerId, topic -> {
            Placement.Spread spread = placement.spread(topic.partitions());
            return p -> p.movedTo(placement.place(spread, brokerId));
        }, events, index);
    }

    /** Places partitions that have no broker on active brokers. */
    private void placeOffline(Consumer<MetadataEvent> events, long index) {
        Placement placement = Placement.of(brokers.values(), topics.values(), rackAware());
        if (!placement.hasActiveBroker()) {
            return;
        }
        updatePartitions(p -> p.brokerId() < 0, topic -> {
            Placement.Spread spread = placement.spread(topic.partitions());
            return p -> p.movedTo(placement.place(spread, -1));
        }, events, index);
    }

    /**
     * Replaces the partitions {@code which} selects with what {@code change} makes of them; {@code
     * change} is asked once per topic that has any, before the first is replaced.
     */
    private void updatePartitions(Predicate<PartitionInfo> which,
            Function<TopicInfo, UnaryOperator<PartitionInfo>> change, Consumer<MetadataEvent> events, long index) {
        for (TopicInfo topic : List.copyOf(topics.values())) {
            List<PartitionInfo> partitions = null;
            UnaryOperator<PartitionInfo> changeOne = null;
            for (int i = 0; i < topic.partitions().size(); i++) {
                PartitionInfo p = topic.partitions().get(i);
                if (which.test(p)) {
                    if (partitions == null) {
                        partitions = new ArrayList<>(topic.partitions());
                        changeOne = change.apply(topic);
                    }
                    partitions.set(i, changeOne.apply(p));
                }
            }
            if (partitions != null) {
                putTopic(new TopicInfo(topic.topicId(), topic.name(), topic.configs(), partitions), events, index);
            }
        }
    }

    /** Whether placement heeds racks: from the feature level on which every voter does (see {@link Placement}). */
    private boolean rackAware() {
        return features.finalizedLevel() >= FeatureLevel.RACK_AWARE_PLACEMENT;
    }

    private void putTopic(TopicInfo topic, Consumer<MetadataEvent> events, long index) {
        topics.put(topic.topicId(), topic);
        topicIdsByName.put(topic.name(), topic.topicId());
        events.accept(MetadataEvent.topicChanged(index, topic));
    }

    // ---- reads and snapshots ----

    Collection<BrokerInfo> brokers() {
        return brokers.values();
    }

    Collection<TopicInfo> topics() {
        return topics.values();
    }

    TopicInfo topic(String name) {
        UUID id = topicIdsByName.get(name);
        return id == null ? null : topics.get(id);
    }

    BrokerInfo broker(int brokerId) {
        return brokers.get(brokerId);
    }

    long nextBrokerEpoch() {
        return nextBrokerEpoch;
    }

    void restore(long nextEpoch, List<BrokerInfo> brokerList, List<TopicInfo> topicList) {
        nextBrokerEpoch = nextEpoch;
        brokers.clear();
        topics.clear();
        topicIdsByName.clear();
        brokerList.forEach(b -> brokers.put(b.brokerId(), b));
        topicList.forEach(t -> {
            topics.put(t.topicId(), t);
            topicIdsByName.put(t.name(), t.topicId());
        });
    }

    private static ControllerException error(ControllerException.Code code, String message) {
        return new ControllerException(code, message);
    }
}

package io.aloft.broker.fetch;

import io.aloft.broker.metadata.MetadataCache;
import io.aloft.controller.model.PartitionInfo;
import io.aloft.controller.model.TopicInfo;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchRequestData.FetchPartition;
import org.apache.kafka.common.message.FetchRequestData.FetchTopic;
import org.apache.kafka.common.message.FetchRequestData.ForgottenTopic;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.FetchResponseData.FetchableTopicResponse;
import org.apache.kafka.common.message.FetchResponseData.PartitionData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.common.requests.FetchRequest;

/**
 * A fetch session manager over fake partitions, driven the way the Fetch handler drives it: plan,
 * answer every target from the fake logs, respond. Time is a field; session ids count up from 101.
 * Confined to the test thread.
 */
final class FetchSessionKit {
    static final short LATEST = ApiKeys.FETCH.latestVersion();
    static final short BY_NAMES = 12;

    long nowMs = 1_000_000L;
    final FetchSessionStats stats = new FetchSessionStats();
    final FetchSessionCache cache;
    final FetchSessionManager manager;
    private final AtomicInteger nextId = new AtomicInteger(101);
    private final Map<String, TopicInfo> topics = new LinkedHashMap<>();
    /** High watermark of each partition that exists. */
    final Map<TopicPartition, Long> highWatermarks = new HashMap<>();
    /** Targets of the last plan, in read order. */
    List<FetchTarget> lastTargets = List.of();

    FetchSessionKit(int slots, long evictionMs) {
        this(slots, evictionMs, null);
    }

    /** With {@code clock} instead of {@link #nowMs} (for tests on several threads). */
    FetchSessionKit(int slots, long evictionMs, java.util.function.LongSupplier clock) {
        cache = new FetchSessionCache(slots, evictionMs, clock != null ? clock : () -> nowMs,
                nextId::getAndIncrement, stats);
        manager = new FetchSessionManager(cache);
    }

    /** Creates (or recreates, with a new id) a topic whose partitions are all empty. */
    Uuid createTopic(String name, int partitions) {
        UUID id = UUID.randomUUID();
        List<PartitionInfo> parts = new ArrayList<>();
        for (int p = 0; p < partitions; p++) {
            parts.add(new PartitionInfo(p, 1, 0, List.of()));
            highWatermarks.put(new TopicPartition(name, p), 0L);
        }
        topics.put(name, new TopicInfo(id, name, Map.of(), parts));
        view = null;
        return new Uuid(id.getMostSignificantBits(), id.getLeastSignificantBits());
    }

    void deleteTopic(String name) {
        TopicInfo t = topics.remove(name);
        view = null;
        for (int p = 0; p < t.partitions().size(); p++) {
            highWatermarks.remove(new TopicPartition(name, p));
        }
    }

    void append(String topic, int partition, int records) {
        highWatermarks.merge(new TopicPartition(topic, partition), (long) records, Long::sum);
    }

    Uuid id(String topic) {
        UUID id = topics.get(topic).topicId();
        return new Uuid(id.getMostSignificantBits(), id.getLeastSignificantBits());
    }

    /** The metadata snapshot, made anew after each topic change (as the broker's metadata cache does). */
    private MetadataCache.View view;

    MetadataCache.View view() {
        if (view == null) {
            Map<String, TopicInfo> byName = new HashMap<>(topics);
            Map<UUID, TopicInfo> byId = new HashMap<>();
            topics.values().forEach(t -> byId.put(t.topicId(), t));
            view = new MetadataCache.View(Map.of(), byName, byId);
        }
        return view;
    }

    /** A request's partition: topic (by name and id), partition, fetch offset. */
    record Part(String topic, Uuid topicId, int partition, long fetchOffset) {
    }

    Part part(String topic, int partition, long fetchOffset) {
        return new Part(topic, topics.containsKey(topic) ? id(topic) : Uuid.ZERO_UUID, partition, fetchOffset);
    }

    /** Fetches at {@code version} with the given session id and epoch, partitions, and forgotten partitions. */
    FetchResponseData fetch(short version, int sessionId, int epoch, List<Part> parts, List<Part> forgotten) {
        return respond(plan(request(version, sessionId, epoch, parts, forgotten)));
    }

    /** The manager's plan for a request, against the fake topics. */
    FetchPlan plan(FetchRequest request) {
        return manager.plan(request, view());
    }

    FetchRequest request(short version, int sessionId, int epoch, List<Part> parts, List<Part> forgotten) {
        Map<String, FetchTopic> byTopic = new LinkedHashMap<>();
        for (Part p : parts) {
            byTopic.computeIfAbsent(p.topic() + p.topicId(), k -> new FetchTopic().setTopic(p.topic())
                    .setTopicId(p.topicId())).partitions().add(new FetchPartition().setPartition(p.partition())
                    .setFetchOffset(p.fetchOffset()).setPartitionMaxBytes(1 << 20));
        }
        Map<String, ForgottenTopic> forget = new LinkedHashMap<>();
        for (Part p : forgotten) {
            forget.computeIfAbsent(p.topic() + p.topicId(), k -> new ForgottenTopic().setTopic(p.topic())
                    .setTopicId(p.topicId())).partitions().add(p.partition());
        }
        FetchRequestData data = new FetchRequestData().setReplicaId(-1).setMaxWaitMs(0).setMinBytes(1)
                .setMaxBytes(50 << 20).setSessionId(sessionId).setSessionEpoch(epoch)
                .setTopics(new ArrayList<>(byTopic.values())).setForgottenTopicsData(new ArrayList<>(forget.values()));
        return new FetchRequest(data, version);
    }

    /** Answers every target of {@code plan} from the fake logs, as the handler would, and responds. */
    FetchResponseData respond(FetchPlan plan) {
        lastTargets = plan.targets();
        List<PartitionData> answers = new ArrayList<>();
        for (FetchTarget t : plan.targets()) {
            answers.add(answer(t));
        }
        return plan.respond(answers);
    }

    private PartitionData answer(FetchTarget t) {
        PartitionData pd = new PartitionData().setPartitionIndex(t.request().partition()).setHighWatermark(-1)
                .setLastStableOffset(-1).setLogStartOffset(-1).setRecords(MemoryRecords.EMPTY);
        Long hw = t.tp() == null ? null : highWatermarks.get(t.tp());
        if (t.error() != Errors.NONE || hw == null) {
            return pd.setErrorCode((t.error() != Errors.NONE ? t.error() : Errors.UNKNOWN_TOPIC_OR_PARTITION).code());
        }
        MemoryRecords records = t.request().fetchOffset() < hw ? MemoryRecords.withRecords(Compression.NONE,
                new SimpleRecord("v".getBytes(StandardCharsets.UTF_8))) : MemoryRecords.EMPTY;
        return pd.setHighWatermark(hw).setLastStableOffset(hw).setLogStartOffset(0).setRecords(records);
    }

    /** The partitions of a response as "topic-partition" (topics by name), sorted. */
    static TreeSet<String> partitions(FetchResponseData response) {
        TreeSet<String> out = new TreeSet<>();
        for (FetchableTopicResponse t : response.responses()) {
            for (PartitionData p : t.partitions()) {
                out.add(t.topic() + "-" + p.partitionIndex());
            }
        }
        return out;
    }

    /** The error of one partition of a response, or null if the response leaves it out. */
    static Errors partitionError(FetchResponseData response, String topic, int partition) {
        for (FetchableTopicResponse t : response.responses()) {
            for (PartitionData p : t.partitions()) {
                if (t.topic().equals(topic) && p.partitionIndex() == partition) {
                    return Errors.forCode(p.errorCode());
                }
            }
        }
        return null;
    }

    /** The partitions the last plan read, as "topic-partition", in order. */
    List<String> lastReadOrder() {
        return lastTargets.stream().map(t -> t.tp() == null ? "?" : t.tp().toString()).toList();
    }
}

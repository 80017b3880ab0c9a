package io.aloft.broker.handler;

import io.aloft.broker.api.ApiHandler;
import io.aloft.broker.api.RequestContext;
import io.aloft.broker.metadata.MetadataCache;
import io.aloft.broker.topic.TopicManager;
import io.aloft.controller.model.BrokerInfo;
import io.aloft.controller.model.BrokerState;
import io.aloft.controller.model.Endpoint;
import io.aloft.controller.model.PartitionInfo;
import io.aloft.controller.model.TopicInfo;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.IntSupplier;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.internals.Topic;
import org.apache.kafka.common.message.MetadataRequestData.MetadataRequestTopic;
import org.apache.kafka.common.message.MetadataResponseData.MetadataResponseBroker;
import org.apache.kafka.common.message.MetadataResponseData.MetadataResponseBrokerCollection;
import org.apache.kafka.common.message.MetadataResponseData.MetadataResponsePartition;
import org.apache.kafka.common.message.MetadataResponseData.MetadataResponseTopic;
import org.apache.kafka.common.message.MetadataResponseData.MetadataResponseTopicCollection;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.MetadataRequest;
import org.apache.kafka.common.requests.MetadataResponse;
import org.apache.kafka.common.resource.ResourceType;

/**
 * Metadata: brokers reachable on the request's listener, and the requested topics (all when the
 * request says so), auto-creating missing ones when both the client and
 * {@code auto.create.topics.enable} allow it. Each partition is served by one broker; since its
 * data is in shared storage, that broker is its only replica and always in sync.
 *
 * <p>An auto-created topic is answered once it exists, with its partitions; Kafka 4 answers
 * UNKNOWN_TOPIC_OR_PARTITION while its controller creates the topic, and the client asks again.
 * Topics are described by id from v12, as Kafka does (v10-11 carry the field but get INVALID_REQUEST).
 *
 * <p>ACLs as Kafka: an all-topics request lists only topics the principal may DESCRIBE; a named
 * topic it may not describe gets TOPIC_AUTHORIZATION_FAILED whether it exists or not; auto-creation
 * needs CREATE on the cluster or the topic (TOPIC_AUTHORIZATION_FAILED otherwise).
 *
 * <p>Stateless; runs on the network thread (auto-creation completes on the controller client's).
 */
public final class MetadataHandler implements ApiHandler<MetadataRequest> {
    /** The first version that may name topics by id alone. */
    static final short FIRST_BY_ID_VERSION = 12;

    private final MetadataCache cache;
    private final TopicManager topics;
    private final boolean autoCreate;
    private final String clusterId;
    private final IntSupplier controllerId;

    public MetadataHandler(MetadataCache cache, TopicManager topics, boolean autoCreate, String clusterId,
            IntSupplier controllerId) {
        this.cache = cache;
        this.topics = topics;
        this.autoCreate = autoCreate;
        this.clusterId = clusterId;
        this.controllerId = controllerId;
    }

    @Override
    public ApiKeys apiKey() {
        return ApiKeys.METADATA;
    }

    @Override
    public CompletableFuture<AbstractResponse> handle(RequestContext context, MetadataRequest request) {
        List<MetadataRequestTopic> wanted = request.data().topics();
        MetadataCache.View view = cache.view();
        List<CompletableFuture<MetadataResponseTopic>> answers = new ArrayList<>();
        if (request.isAllTopics()) { // v1+: a null list; v0: an empty one
            for (TopicInfo t : view.topicsByName().values()) {
                if (context.authorized(AclOperation.DESCRIBE, ResourceType.TOPIC, t.name())) { // hidden otherwise
                    answers.add(CompletableFuture.completedFuture(describe(t, Errors.NONE)));
                }
            }
        } else {
            boolean mayCreate = autoCreate && request.data().allowAutoTopicCreation();
            for (MetadataRequestTopic w : wanted) {
                answers.add(answer(context, view, w, mayCreate, request.version()));
            }
        }
        return CompletableFuture.allOf(answers.toArray(CompletableFuture[]::new)).thenApply(v -> {
            MetadataResponseTopicCollection out = new MetadataResponseTopicCollection();
            answers.forEach(a -> out.add(a.join()));
            MetadataResponseData data = new MetadataResponseData()
                    .setThrottleTimeMs(0)
                    .setBrokers(brokers(cache.view(), context.listenerName()))
                    .setClusterId(clusterId)
                    .setControllerId(controllerId.getAsInt())
                    .setTopics(out);
            return new MetadataResponse(data, request.version());
        });
    }

    private CompletableFuture<MetadataResponseTopic> answer(RequestContext context, MetadataCache.View view,
            MetadataRequestTopic w, boolean mayCreate, short version) {
        if (w.name() == null && version < FIRST_BY_ID_VERSION) {
            // v10-11 carry topic ids but Kafka describes topics by id from v12 only (KIP-516).
            return CompletableFuture.completedFuture(new MetadataResponseTopic().setName("").setTopicId(w.topicId())
                    .setErrorCode(Errors.INVALID_REQUEST.code()));
        }
        if (w.name() == null) {
            Uuid id = w.topicId();
            TopicInfo t = id == null ? null : view.topic(new java.util.UUID(id.getMostSignificantBits(),
                    id.getLeastSignificantBits()));
            if (t == null) {
                return CompletableFuture.completedFuture(new MetadataResponseTopic().setTopicId(id)
                        .setErrorCode(Errors.UNKNOWN_TOPIC_ID.code()));
            }
            if (!context.authorized(AclOperation.DESCRIBE, ResourceType.TOPIC, t.name())) {
                // As Kafka: a topic id is not secret, so its topic's name is withheld but not its existence.
                return CompletableFuture.completedFuture(new MetadataResponseTopic().setTopicId(id)
                        .setErrorCode(Errors.TOPIC_AUTHORIZATION_FAILED.code()));
            }
            return CompletableFuture.completedFuture(describe(t, Errors.NONE));
        }
        if (!context.authorized(AclOperation.DESCRIBE, ResourceType.TOPIC, w.name())) {
            // Whether it exists or not: Kafka does not reveal the existence of a topic one may not describe.
            return CompletableFuture.completedFuture(unknown(w.name(), Errors.TOPIC_AUTHORIZATION_FAILED));
        }
        TopicInfo t = view.topic(w.name());
        if (t != null) {
            return CompletableFuture.completedFuture(describe(t, Errors.NONE));
        }
        if (!mayCreate || Topic.isInternal(w.name())) {
            return CompletableFuture.completedFuture(unknown(w.name(), Errors.UNKNOWN_TOPIC_OR_PARTITION));
        }
        if (!context.authorizedOnCluster(AclOperation.CREATE)
                && !context.authorized(AclOperation.CREATE, ResourceType.TOPIC, w.name())) {
            return CompletableFuture.completedFuture(unknown(w.name(), Errors.TOPIC_AUTHORIZATION_FAILED));
        }
        return topics.create(w.name(), -1, Map.of()).handle((created, error) -> {
            if (error == null) {
                return describe(created, Errors.NONE);
            }
            Errors code = ControllerErrors.toKafka(error);
            if (code == Errors.TOPIC_ALREADY_EXISTS) {
                // Created concurrently by another request: the client asks again and finds it.
                return unknown(w.name(), Errors.LEADER_NOT_AVAILABLE);
            }
            return unknown(w.name(), code == Errors.INVALID_TOPIC_EXCEPTION ? code : Errors.INVALID_TOPIC_EXCEPTION);
        });
    }

    private static MetadataResponseTopic unknown(String name, Errors error) {
        return new MetadataResponseTopic().setName(name).setErrorCode(error.code()).setTopicId(Uuid.ZERO_UUID);
    }

    private MetadataResponseTopic describe(TopicInfo t, Errors error) {
        List<MetadataResponsePartition> partitions = new ArrayList<>(t.partitions().size());
        for (PartitionInfo p : t.partitions()) {
            MetadataResponsePartition mp = new MetadataResponsePartition().setPartitionIndex(p.partition())
                    .setLeaderEpoch(p.leaderEpoch());
            if (p.brokerId() < 0 || !active(p.brokerId())) {
                mp.setErrorCode(Errors.LEADER_NOT_AVAILABLE.code()).setLeaderId(-1).setReplicaNodes(List.of())
                        .setIsrNodes(List.of());
            } else {
                mp.setErrorCode(Errors.NONE.code()).setLeaderId(p.brokerId()).setReplicaNodes(List.of(p.brokerId()))
                        .setIsrNodes(List.of(p.brokerId()));
            }
            mp.setOfflineReplicas(List.of());
            partitions.add(mp);
        }
        return new MetadataResponseTopic().setName(t.name()).setErrorCode(error.code())
                .setTopicId(new Uuid(t.topicId().getMostSignificantBits(), t.topicId().getLeastSignificantBits()))
                .setIsInternal(Topic.isInternal(t.name())).setPartitions(partitions);
    }

    private boolean active(int brokerId) {
        BrokerInfo b = cache.view().brokers().get(brokerId);
        return b != null && b.state() != BrokerState.FENCED;
    }

    static MetadataResponseBrokerCollection brokers(MetadataCache.View view, String listenerName) {
        MetadataResponseBrokerCollection out = new MetadataResponseBrokerCollection();
        for (BrokerInfo b : view.brokers().values()) {
            if (b.state() == BrokerState.FENCED) {
                continue;
            }
            for (Endpoint e : b.endpoints()) {
                if (e.listener().equals(listenerName)) {
                    out.add(new MetadataResponseBroker().setNodeId(b.brokerId()).setHost(e.host()).setPort(e.port())
                            .setRack(b.rack()));
                }
            }
        }
        return out;
    }
}

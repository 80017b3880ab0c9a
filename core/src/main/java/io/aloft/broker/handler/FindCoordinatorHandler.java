package io.aloft.broker.handler;

import io.aloft.broker.api.ApiHandler;
import io.aloft.broker.api.RequestContext;
import io.aloft.broker.group.PartitionGroupLog;
import io.aloft.broker.metadata.MetadataCache;
import io.aloft.controller.model.BrokerInfo;
import io.aloft.controller.model.BrokerState;
import io.aloft.controller.model.Endpoint;
import io.aloft.controller.model.PartitionInfo;
import io.aloft.controller.model.TopicInfo;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.ToIntFunction;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.message.FindCoordinatorRequestData;
import org.apache.kafka.common.message.FindCoordinatorResponseData;
import org.apache.kafka.common.message.FindCoordinatorResponseData.Coordinator;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.FindCoordinatorRequest;
import org.apache.kafka.common.requests.FindCoordinatorResponse;
import org.apache.kafka.common.resource.ResourceType;

/**
 * FindCoordinator. A group's coordinator is the broker leading the group's partition of
 * {@code __consumer_offsets}, since only that broker may append the group's records; it is
 * answered with its endpoint on the listener the request came in on. Before the partition has a
 * live leader (or the topic exists) the answer is COORDINATOR_NOT_AVAILABLE, which clients retry;
 * a lookup while the topic does not exist starts its creation, as in Kafka.
 *
 * <p>A transactional id's coordinator (key type 1), with {@code aloft.transactions.enable}, is found
 * the same way in {@code __transaction_state}; a share partition's (key type 2, v6+, KIP-932: key
 * {@code groupId:topicId:partition}, asked by brokers, so CLUSTER_ACTION on the cluster as in Kafka),
 * with share groups on, in {@code __share_group_state}; a share key Kafka cannot parse (no group, a
 * topic id that is not one, a partition that is not a number) gets INVALID_REQUEST, as from Kafka.
 * A key type that is off is answered as Kafka answers a key type it does not serve (an unknown type,
 * or a share key before v6), with INVALID_REQUEST and a message saying why (v1+). Clients do not
 * retry it, so a transactional producer's {@code initTransactions()} fails at once with that message
 * rather than retry COORDINATOR_NOT_AVAILABLE until its timeout. Versions 0-3 carry one key; v4+ a
 * batch (KIP-699), each key answered on its own.
 *
 * <p>Stateless; runs on the network thread.
 */
public final class FindCoordinatorHandler implements ApiHandler<FindCoordinatorRequest> {
    private static final byte GROUP = 0;
    private static final byte TRANSACTION = 1;
    private static final byte SHARE = 2;

    /**
     * A coordinator's internal topic: its name, the coordinator's rule from key to partition, and
     * what starts creating the topic (called while it does not exist). Immutable.
     */
    public record CoordinatorKeys(String topic, ToIntFunction<String> partitionFor, Runnable createTopic) {
    }

    private final MetadataCache cache;
    private final CoordinatorKeys groups;
    private final CoordinatorKeys transactions;
    private final CoordinatorKeys shares;

    /**
     * @param partitionFor the group's {@code __consumer_offsets} partition (the coordinator's own rule)
     * @param createTopic starts creating {@code __consumer_offsets}; called while it does not exist
     */
    public FindCoordinatorHandler(MetadataCache cache, ToIntFunction<String> partitionFor, Runnable createTopic) {
        this(cache, new CoordinatorKeys(PartitionGroupLog.TOPIC, partitionFor, createTopic), null);
    }

    /** @param transactions {@code __transaction_state}, or null while transactions are off */
    public FindCoordinatorHandler(MetadataCache cache, CoordinatorKeys groups, CoordinatorKeys transactions) {
        this(cache, groups, transactions, null);
    }

    /**
     * @param transactions {@code __transaction_state}, or null while transactions are off
     * @param shares {@code __share_group_state}, or null while share groups are off
     */
    public FindCoordinatorHandler(MetadataCache cache, CoordinatorKeys groups, CoordinatorKeys transactions,
            CoordinatorKeys shares) {
        this.cache = cache;
        this.groups = groups;
        this.transactions = transactions;
        this.shares = shares;
    }

    @Override
    public ApiKeys apiKey() {
        return ApiKeys.FIND_COORDINATOR;
    }

    /**
     * Up to v6, as Kafka 4.x brokers serve; pinned rather than taken from kafka-clients, whose next
     * release may know versions the coordinator does not handle.
     */
    @Override
    public short maxVersion() {
        return 6;
    }

    @Override
    public CompletableFuture<AbstractResponse> handle(RequestContext context, FindCoordinatorRequest request) {
        FindCoordinatorRequestData data = request.data();
        MetadataCache.View view = cache.view();
        FindCoordinatorResponseData response = new FindCoordinatorResponseData().setThrottleTimeMs(0);
        if (request.version() < FindCoordinatorRequest.MIN_BATCHED_VERSION) {
            Coordinator c = find(context, view, data.key(), data.keyType(), request.version());
            response.setErrorCode(c.errorCode()).setErrorMessage(c.errorMessage()).setNodeId(c.nodeId())
                    .setHost(c.host()).setPort(c.port());
        } else {
            List<Coordinator> coordinators = new ArrayList<>(data.coordinatorKeys().size());
            for (String key : data.coordinatorKeys()) {
                coordinators.add(find(context, view, key, data.keyType(), request.version()));
            }
            response.setCoordinators(coordinators);
        }
        return CompletableFuture.completedFuture(new FindCoordinatorResponse(response));
    }

    private Coordinator find(RequestContext context, MetadataCache.View view, String key, byte keyType,
            short version) {
        String listener = context.listenerName();
        if (keyType == TRANSACTION && transactions == null) {
            return failed(key, Errors.INVALID_REQUEST, "this broker (Aloft) does not support transactions yet");
        }
        if (keyType == SHARE && (shares == null || version < 6)) {
            return failed(key, Errors.INVALID_REQUEST, shares == null ? "share groups are off on this broker "
                    + "(aloft.share.version=0)" : "share keys need FindCoordinator v6");
        }
        if (keyType != GROUP && keyType != TRANSACTION && keyType != SHARE) {
            return failed(key, Errors.INVALID_REQUEST, "unknown coordinator key type " + keyType);
        }
        if (key == null) {
            return failed(key, Errors.INVALID_REQUEST, "a coordinator key must not be null");
        }
        // As Kafka: DESCRIBE on the group or transactional id the key names.
        if (keyType == GROUP && !context.authorized(AclOperation.DESCRIBE, ResourceType.GROUP, key)) {
            return failed(key, Errors.GROUP_AUTHORIZATION_FAILED, null);
        }
        if (keyType == TRANSACTION && !context.authorized(AclOperation.DESCRIBE, ResourceType.TRANSACTIONAL_ID, key)) {
            return failed(key, Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED, null);
        }
        if (keyType == SHARE) {
            // As Kafka: only brokers look share coordinators up.
            if (!context.authorizedOnCluster(AclOperation.CLUSTER_ACTION)) {
                return failed(key, Errors.CLUSTER_AUTHORIZATION_FAILED, null);
            }
            if (!isShareKey(key)) {
                return failed(key, Errors.INVALID_REQUEST, null);
            }
        }
        CoordinatorKeys keys = keyType == GROUP ? groups : keyType == TRANSACTION ? transactions : shares;
        String name = keys.topic();
        TopicInfo topic = view.topic(name);
        int partition = keys.partitionFor().applyAsInt(key);
        if (topic == null) {
            keys.createTopic().run();
        }
        if (topic == null || partition >= topic.partitions().size()) {
            return failed(key, Errors.COORDINATOR_NOT_AVAILABLE, name + "-" + partition + " does not exist yet");
        }
        PartitionInfo p = topic.partitions().get(partition);
        BrokerInfo leader = p.brokerId() < 0 ? null : view.brokers().get(p.brokerId());
        if (leader == null || leader.state() == BrokerState.FENCED) {
            return failed(key, Errors.COORDINATOR_NOT_AVAILABLE, name + "-" + partition + " has no live leader");
        }
        for (Endpoint e : leader.endpoints()) {
            if (e.listener().equals(listener)) {
                return new Coordinator().setKey(key).setErrorCode(Errors.NONE.code()).setNodeId(leader.brokerId())
                        .setHost(e.host()).setPort(e.port());
            }
        }
        return failed(key, Errors.COORDINATOR_NOT_AVAILABLE, "broker " + leader.brokerId()
                + " has no endpoint on listener " + listener);
    }

    /**
     * Whether {@code key} is a share key as Kafka parses one: {@code groupId:topicId:partition}, read
     * from the right (a group id may hold colons), with a non-empty group, a topic id in Kafka's
     * base64 form and a partition that is an int (a negative one is taken, as Kafka takes it).
     */
    static boolean isShareKey(String key) {
        int last = key.lastIndexOf(':');
        int middle = last <= 0 ? -1 : key.lastIndexOf(':', last - 1);
        if (middle <= 0) {
            return false;
        }
        try {
            Integer.parseInt(key.substring(last + 1));
            Uuid.fromString(key.substring(middle + 1, last));
            return true;
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    private static Coordinator failed(String key, Errors error, String message) {
        return new Coordinator().setKey(key).setErrorCode(error.code()).setErrorMessage(message).setNodeId(-1)
                .setHost("").setPort(-1);
    }
}

package io.aloft.broker.handler;

import io.aloft.broker.api.ApiHandler;
import io.aloft.broker.api.RequestContext;
import io.aloft.broker.metadata.MetadataCache;
import io.aloft.broker.topic.TopicManager;
import io.aloft.controller.ControllerException;
import io.aloft.controller.model.BrokerInfo;
import io.aloft.controller.model.BrokerState;
import io.aloft.controller.model.TopicInfo;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.message.AlterPartitionReassignmentsRequestData.ReassignablePartition;
import org.apache.kafka.common.message.AlterPartitionReassignmentsRequestData.ReassignableTopic;
import org.apache.kafka.common.message.AlterPartitionReassignmentsResponseData;
import org.apache.kafka.common.message.AlterPartitionReassignmentsResponseData.ReassignablePartitionResponse;
import org.apache.kafka.common.message.AlterPartitionReassignmentsResponseData.ReassignableTopicResponse;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.AlterPartitionReassignmentsRequest;
import org.apache.kafka.common.requests.AlterPartitionReassignmentsResponse;

/**
 * AlterPartitionReassignments: moves partitions between brokers, as {@code kafka-reassign-partitions.sh
 * --execute} asks. Every partition has exactly one replica here (its data is on shared object
 * storage, durability does not come from copies), so a target is a list of exactly one broker id:
 * the controller makes that broker the partition's owner and raises its leader epoch, and the old
 * broker hands the partition over (it closes it and uploads its WAL data; the new one opens it
 * then). No data is copied, so a move is never in progress for long and cannot be cancelled:
 * a cancellation (null replicas) answers NO_REASSIGNMENT_IN_PROGRESS, as Kafka does when none is.
 *
 * <p>Refused with INVALID_REPLICA_ASSIGNMENT, per partition: an empty list, several replicas (with a
 * message saying why: a second replica would add nothing on shared storage, and quietly taking the
 * first would let a tool believe it raised the replication factor), a negative, unknown, fenced or
 * shutting-down broker (INVALID_REPLICATION_FACTOR instead for several replicas when a v1 request
 * does not allow a replication factor change, as Kafka answers). Unknown topics and partitions
 * answer UNKNOWN_TOPIC_OR_PARTITION, as Kafka does. When the controller has not answered every
 * move within the request's {@code timeoutMs} (no quorum, say), the answer is REQUEST_TIMED_OUT,
 * as Kafka's error response has it.
 *
 * <p>Thread-safe (stateless; the controller orders concurrent moves of one partition).
 */
public final class AlterPartitionReassignmentsHandler implements ApiHandler<AlterPartitionReassignmentsRequest> {
    static final String ONE_REPLICA = "Aloft keeps exactly one replica of each partition (its data is on shared "
            + "object storage): give one target broker id";

    private final MetadataCache cache;
    private final TopicManager topics;

    public AlterPartitionReassignmentsHandler(MetadataCache cache, TopicManager topics) {
        this.cache = cache;
        this.topics = topics;
    }

    @Override
    public ApiKeys apiKey() {
        return ApiKeys.ALTER_PARTITION_REASSIGNMENTS;
    }

    @Override
    public CompletableFuture<AbstractResponse> handle(RequestContext context,
            AlterPartitionReassignmentsRequest request) {
        if (!context.authorizedOnCluster(AclOperation.ALTER)) { // as Kafka's controller
            return CompletableFuture.completedFuture(request.getErrorResponse(
                    Errors.CLUSTER_AUTHORIZATION_FAILED.exception()));
        }
        List<ReassignableTopicResponse> responses = new ArrayList<>();
        List<CompletableFuture<?>> pending = new ArrayList<>();
        for (ReassignableTopic t : request.data().topics()) {
            ReassignableTopicResponse topicResponse = new ReassignableTopicResponse().setName(t.name());
            responses.add(topicResponse);
            for (ReassignablePartition p : t.partitions()) {
                ReassignablePartitionResponse out = new ReassignablePartitionResponse()
                        .setPartitionIndex(p.partitionIndex());
                topicResponse.partitions().add(out);
                pending.add(moveOne(t.name(), p, request.data().allowReplicationFactorChange())
                        .thenAccept(outcome -> out.setErrorCode(outcome.error().code())
                                .setErrorMessage(outcome.message())));
            }
        }
        AlterPartitionReassignmentsResponseData data = new AlterPartitionReassignmentsResponseData()
                .setThrottleTimeMs(0).setErrorCode(Errors.NONE.code()).setResponses(responses);
        if (request.version() >= 1) {
            data.setAllowReplicationFactorChange(request.data().allowReplicationFactorChange());
        }
        int timeoutMs = Math.max(0, request.data().timeoutMs());
        return CompletableFuture.allOf(pending.toArray(CompletableFuture[]::new))
                .orTimeout(timeoutMs, TimeUnit.MILLISECONDS)
                .handle((v, timedOut) -> timedOut == null ? new AlterPartitionReassignmentsResponse(data)
                        // Only the controller's answers can be late (every other outcome is made here).
                        // Kafka's error response: REQUEST_TIMED_OUT at the top and for every partition.
                        : request.getErrorResponse(0, new TimeoutException("the controller did not answer within "
                                + "the request's timeoutMs=" + timeoutMs + "; moves it had not answered may still "
                                + "be made")));
    }

    /** One partition's outcome: the error (NONE once the controller has made the move) and its message. */
    private record Outcome(Errors error, String message) {
        static final Outcome MOVED = new Outcome(Errors.NONE, null);
    }

    private CompletableFuture<Outcome> moveOne(String topicName, ReassignablePartition p, boolean allowRfChange) {
        TopicInfo topic = cache.view().topic(topicName);
        if (topic == null || p.partitionIndex() < 0 || p.partitionIndex() >= topic.partitions().size()) {
            return done(Errors.UNKNOWN_TOPIC_OR_PARTITION, topic == null ? "topic " + topicName + " does not exist"
                    : "topic " + topicName + " has no partition " + p.partitionIndex());
        }
        List<Integer> replicas = p.replicas();
        if (replicas == null) {
            return done(Errors.NO_REASSIGNMENT_IN_PROGRESS, "no reassignment of " + topicName + "-"
                    + p.partitionIndex() + " is in progress: a move completes when the controller makes it");
        }
        Outcome invalid = validate(replicas, allowRfChange);
        if (invalid != null) {
            return CompletableFuture.completedFuture(invalid);
        }
        return topics.reassign(topicName, p.partitionIndex(), replicas.get(0)).handle((moved, failure) -> {
            if (failure == null) {
                return Outcome.MOVED;
            }
            Throwable cause = failure instanceof CompletionException && failure.getCause() != null
                    ? failure.getCause() : failure;
            if (cause instanceof ControllerException ce && (ce.code() == ControllerException.Code.BROKER_NOT_FOUND
                    || ce.code() == ControllerException.Code.BROKER_NOT_ACTIVE)) {
                // Registered or active when this broker looked, no longer when the controller did.
                return new Outcome(Errors.INVALID_REPLICA_ASSIGNMENT, ControllerErrors.message(failure));
            }
            return new Outcome(ControllerErrors.toKafka(failure), ControllerErrors.message(failure));
        });
    }

    /** Why {@code replicas} cannot be a target, or null if it can. */
    private Outcome validate(List<Integer> replicas, boolean allowRfChange) {
        if (replicas.isEmpty()) {
            return new Outcome(Errors.INVALID_REPLICA_ASSIGNMENT, "the replica list is empty");
        }
        if (new HashSet<>(replicas).size() != replicas.size()) {
            return new Outcome(Errors.INVALID_REPLICA_ASSIGNMENT, "the replica list " + replicas
                    + " names a broker twice");
        }
        for (int id : replicas) {
            if (id < 0) {
                return new Outcome(Errors.INVALID_REPLICA_ASSIGNMENT, "invalid broker id " + id);
            }
            BrokerInfo broker = cache.view().brokers().get(id);
            if (broker == null) {
                return new Outcome(Errors.INVALID_REPLICA_ASSIGNMENT, "broker " + id + " is not registered");
            }
            if (broker.state() != BrokerState.ACTIVE) {
                return new Outcome(Errors.INVALID_REPLICA_ASSIGNMENT, "broker " + id + " is "
                        + broker.state().name().toLowerCase(Locale.ROOT) + ", not active");
            }
        }
        if (replicas.size() > 1 && !allowRfChange) {
            // What Kafka answers a v1 request that would change the replication factor without allowing it.
            return new Outcome(Errors.INVALID_REPLICATION_FACTOR, "the replication factor is 1; "
                    + replicas.size() + " replicas would change it (and " + ONE_REPLICA + ")");
        }
        if (replicas.size() > 1) {
            return new Outcome(Errors.INVALID_REPLICA_ASSIGNMENT, ONE_REPLICA + ", not " + replicas);
        }
        return null;
    }

    private static CompletableFuture<Outcome> done(Errors error, String message) {
        return CompletableFuture.completedFuture(new Outcome(error, message));
    }
}

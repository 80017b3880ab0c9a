package io.aloft.broker.handler;

import io.aloft.broker.api.ApiHandler;
import io.aloft.broker.api.RequestContext;
import io.aloft.broker.txn.TransactionMarkerAppender;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.message.WriteTxnMarkersRequestData.WritableTxnMarker;
import org.apache.kafka.common.message.WriteTxnMarkersRequestData.WritableTxnMarkerTopic;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.WriteTxnMarkersRequest;
import org.apache.kafka.common.requests.WriteTxnMarkersResponse;

/**
 * WriteTxnMarkers (API 27), v1-2 as Kafka 4.3 serves it: a transaction coordinator on another
 * broker asks this one to write the COMMIT or ABORT markers of its transactions into the partitions
 * this broker leads. Every partition of every marker is written by {@link TransactionMarkerAppender}
 * and answered with its own error code (see there); the response holds them per producer id, as
 * Kafka's does (a marker naming no partition has no entry). v2 carries the marker's transaction
 * version (KIP-1228); v1 means version 0. A marker with a negative producer epoch fails the whole
 * request, as in Kafka.
 *
 * <p>Registered only with transactions on, so ApiVersions advertises it only then (a coordinator
 * elsewhere then sees it unsupported and retries).
 *
 * <p>Stateless; runs on the network thread, completes on the partitions' acknowledgement threads.
 */
public final class WriteTxnMarkersHandler implements ApiHandler<WriteTxnMarkersRequest> {
    private final TransactionMarkerAppender appender;

    public WriteTxnMarkersHandler(TransactionMarkerAppender appender) {
        this.appender = appender;
    }

    @Override
    public ApiKeys apiKey() {
        return ApiKeys.WRITE_TXN_MARKERS;
    }

    private record Written(long producerId, TopicPartition tp, CompletableFuture<Errors> error) {
    }

    @Override
    public CompletableFuture<AbstractResponse> handle(RequestContext context, WriteTxnMarkersRequest request) {
        if (!context.authorizedOnCluster(AclOperation.CLUSTER_ACTION)) { // as Kafka: brokers only
            return CompletableFuture.completedFuture(request.getErrorResponse(0,
                    Errors.CLUSTER_AUTHORIZATION_FAILED.exception()));
        }
        for (WritableTxnMarker m : request.data().markers()) {
            if (m.producerEpoch() < 0 && m.topics().stream().anyMatch(t -> !t.partitionIndexes().isEmpty())) {
                // No marker can carry a negative epoch: Kafka fails the whole request (every partition of
                // every marker UNKNOWN_SERVER_ERROR, nothing written), and so does this.
                return CompletableFuture.completedFuture(request.getErrorResponse(0,
                        Errors.UNKNOWN_SERVER_ERROR.exception("marker of producer " + m.producerId()
                                + " with negative epoch " + m.producerEpoch())));
            }
        }
        List<Written> all = new ArrayList<>();
        for (WritableTxnMarker m : request.data().markers()) {
            short transactionVersion = request.version() >= 2 ? m.transactionVersion() : 0;
            for (WritableTxnMarkerTopic t : m.topics()) {
                for (int p : t.partitionIndexes()) {
                    TopicPartition tp = new TopicPartition(t.name(), p);
                    all.add(new Written(m.producerId(), tp, appender.append(tp, m.producerId(), m.producerEpoch(),
                            m.coordinatorEpoch(), m.transactionResult(), transactionVersion)));
                }
            }
        }
        return CompletableFuture.allOf(all.stream().map(Written::error).toArray(CompletableFuture<?>[]::new))
                .thenApply(v -> {
                    Map<Long, Map<TopicPartition, Errors>> errors = new LinkedHashMap<>();
                    for (Written w : all) {
                        errors.computeIfAbsent(w.producerId, id -> new HashMap<>()).put(w.tp, w.error.join());
                    }
                    return new WriteTxnMarkersResponse(errors);
                });
    }
}

package io.aloft.broker.handler;

import io.aloft.broker.api.ApiHandler;
import io.aloft.broker.api.RequestContext;
import io.aloft.broker.log.AppendResult;
import io.aloft.broker.log.PartitionErrors;
import io.aloft.broker.log.PartitionLogException;
import io.aloft.broker.metadata.MetadataCache;
import io.aloft.broker.metrics.BrokerTopicMetrics;
import io.aloft.broker.partition.PartitionManager;
import io.aloft.broker.partition.TransactionCheck;
import io.aloft.broker.partition.VerificationBatch;
import io.aloft.controller.model.TopicInfo;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.message.ProduceRequestData.PartitionProduceData;
import org.apache.kafka.common.message.ProduceRequestData.TopicProduceData;
import org.apache.kafka.common.message.ProduceResponseData.BatchIndexAndErrorMessage;
import org.apache.kafka.common.message.ProduceResponseData.LeaderIdAndEpoch;
import org.apache.kafka.common.message.ProduceResponseData.NodeEndpoint;
import org.apache.kafka.common.message.ProduceResponseData.PartitionProduceResponse;
import org.apache.kafka.common.message.ProduceResponseData.TopicProduceResponse;
import org.apache.kafka.common.message.ProduceResponseData.TopicProduceResponseCollection;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.ProduceRequest;
import org.apache.kafka.common.requests.ProduceResponse;
import org.apache.kafka.common.requests.RequestUtils;
import org.apache.kafka.common.resource.ResourceType;

/**
 * Produce. Every acks setting waits for the WAL: an append completes only once durable, so
 * acks=1 and acks=all mean the same here (one copy, in shared durable storage) and acks=0 gets
 * no response at all, as Kafka defines.
 *
 * <p>What the protocol version requires of the records is checked first ({@link ProduceRecordsCheck});
 * a transactional id on a request whose batches are not transactional is ignored, as Kafka does.
 * With transactions on, the first batch of a transaction in a partition is checked with the
 * transaction's coordinator before it is appended (KIP-890: verified for Produce up to v11, added to
 * the transaction from v12, which only transaction-version-2 clients send in a transaction; see
 * {@link TransactionCheck} and {@code PartitionWriters}); the request's partitions ask it together
 * ({@link VerificationBatch}), one coordinator write per request and transaction.
 *
 * <p>ACLs as Kafka: transactional batches need WRITE on the transactional id (the whole request is
 * refused with TRANSACTIONAL_ID_AUTHORIZATION_FAILED); each topic needs WRITE
 * (TOPIC_AUTHORIZATION_FAILED, checked before whether the topic exists). Idempotent producers need
 * nothing more here: Kafka 4 checks them at InitProducerId.
 *
 * <p>A partition this broker does not lead is answered NOT_LEADER_OR_FOLLOWER, from v10 with its
 * current leader and that leader's endpoint (KIP-951, {@link LeaderHints}).
 *
 * <p>Stateless; runs on the network thread. The response is built on the acknowledgement thread
 * of the partition whose append completes last (the stream store's {@code aloft-stream-ack-*},
 * never the WAL's thread), and the network layer writes it on the connection's event loop.
 */
public final class ProduceHandler implements ApiHandler<ProduceRequest> {
    private final MetadataCache cache;
    private final PartitionManager partitions;
    private final boolean transactions;
    private final BrokerTopicMetrics topicMetrics;

    public ProduceHandler(MetadataCache cache, PartitionManager partitions) {
        this(cache, partitions, false);
    }

    /** @param transactions whether transactional batches are accepted (aloft.transactions.enable) */
    public ProduceHandler(MetadataCache cache, PartitionManager partitions, boolean transactions) {
        this(cache, partitions, transactions, BrokerTopicMetrics.none());
    }

    /** As above, counting bytes, records and failures per topic in {@code topicMetrics}. */
    public ProduceHandler(MetadataCache cache, PartitionManager partitions, boolean transactions,
            BrokerTopicMetrics topicMetrics) {
        this.cache = cache;
        this.partitions = partitions;
        this.transactions = transactions;
        this.topicMetrics = topicMetrics;
    }

    @Override
    public ApiKeys apiKey() {
        return ApiKeys.PRODUCE;
    }

    @Override
    public short minVersion() {
        return 3; // the oldest Kafka 4.x brokers serve (magic 2 only)
    }

    /** v0-2 are advertised, and refused by closing the connection, as Kafka 4 does for librdkafka (KAFKA-18659). */
    @Override
    public short advertisedMinVersion() {
        return ApiKeys.PRODUCE_API_VERSIONS_RESPONSE_MIN_VERSION;
    }

    @Override
    public CompletableFuture<AbstractResponse> handle(RequestContext context, ProduceRequest request) {
        short acks = request.acks();
        if (RequestUtils.hasTransactionalRecords(request) && (request.transactionalId() == null
                || !context.authorized(AclOperation.WRITE, ResourceType.TRANSACTIONAL_ID, request.transactionalId()))) {
            return CompletableFuture.completedFuture(request.getErrorResponse(
                    Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED.exception()));
        }
        // The client stops waiting after the request's timeout (its request.timeout.ms): nothing
        // still queued behind an opening partition by then may be appended (see PartitionManager).
        long deadlineNanos = request.timeout() > 0
                ? System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(request.timeout()) : Long.MAX_VALUE;
        List<CompletableFuture<TopicProduceResponse>> topics = new ArrayList<>();
        // The request's partitions that need their transaction's coordinator ask it together, once all
        // are queued: one coordinator write for the request, not one per partition.
        try (VerificationBatch batch = new VerificationBatch()) {
            for (TopicProduceData t : request.data().topicData()) {
                topics.add(produceTopic(context, t, acks, request.version(), request.data().transactionalId(),
                        deadlineNanos,
                        batch));
            }
        }
        return CompletableFuture.allOf(topics.toArray(CompletableFuture[]::new)).thenApply(v -> {
            TopicProduceResponseCollection out = new TopicProduceResponseCollection();
            topics.forEach(t -> out.add(t.join()));
            ProduceResponseData data = new ProduceResponseData().setThrottleTimeMs(0).setResponses(out);
            if (request.version() >= LeaderHints.FIRST_PRODUCE_VERSION) {
                addLeaderHints(data, context.listenerName());
            }
            return new ProduceResponse(data);
        });
    }

    /** KIP-951: partitions refused for not being led here name their leader (see {@link LeaderHints}). */
    private void addLeaderHints(ProduceResponseData data, String listener) {
        LeaderHints hints = new LeaderHints(cache.view(), listener);
        for (TopicProduceResponse t : data.responses()) {
            String topic = hints.topicName(t.name(), t.topicId());
            for (PartitionProduceResponse p : t.partitionResponses()) {
                if (LeaderHints.wantedInProduce(p.errorCode())) {
                    LeaderHints.Leader leader = hints.leader(topic, p.index());
                    p.setCurrentLeader(new LeaderIdAndEpoch().setLeaderId(leader.id()).setLeaderEpoch(leader.epoch()));
                }
            }
        }
        for (LeaderHints.Node n : hints.nodes()) {
            data.nodeEndpoints().add(new NodeEndpoint().setNodeId(n.id()).setHost(n.host()).setPort(n.port())
                    .setRack(n.rack()));
        }
    }

    private CompletableFuture<TopicProduceResponse> produceTopic(RequestContext context, TopicProduceData t,
            short acks, short version,
            String transactionalId, long deadlineNanos, VerificationBatch batch) {
        String name = t.name();
        Uuid topicId = t.topicId();
        if ((name == null || name.isEmpty()) && topicId != null && !Uuid.ZERO_UUID.equals(topicId)) {
            TopicInfo topic = cache.view().topic(new UUID(topicId.getMostSignificantBits(),
                    topicId.getLeastSignificantBits()));
            name = topic == null ? null : topic.name();
        }
        // As Kafka, before looking at the topic: a topic one may not write to gets TOPIC_AUTHORIZATION_FAILED
        // whether it exists or not.
        boolean authorized = name == null || context.authorized(AclOperation.WRITE, ResourceType.TOPIC, name);
        // Kafka counts a partition as a produce request only once its topic is known.
        boolean counted = authorized && name != null && cache.view().topic(name) != null;
        List<CompletableFuture<PartitionProduceResponse>> parts = new ArrayList<>();
        for (PartitionProduceData p : t.partitionData()) {
            if (name == null) {
                if (topicId != null && !Uuid.ZERO_UUID.equals(topicId)) {
                    // Likely a topic just created, not in this broker's metadata yet: the producer's next
                    // batch must not be appended before this one's retry (see PartitionWriters).
                    partitions.refusedUnknownTopicId(new UUID(topicId.getMostSignificantBits(),
                            topicId.getLeastSignificantBits()), p.index(),
                            p.records() instanceof MemoryRecords m ? m : null);
                }
                parts.add(done(p.index(), Errors.UNKNOWN_TOPIC_ID, "unknown topic id " + topicId));
            } else if (!authorized) {
                parts.add(done(p.index(), Errors.TOPIC_AUTHORIZATION_FAILED, null));
            } else if (org.apache.kafka.common.internals.Topic.isInternal(name)) {
                // Only the broker's group coordinator writes there (as in Kafka, which counts it as a request).
                if (counted) {
                    topicMetrics.produceRequest(name);
                }
                parts.add(done(p.index(), Errors.INVALID_TOPIC_EXCEPTION, "cannot produce to internal topic " + name));
            } else if (acks != 0 && acks != 1 && acks != -1) {
                parts.add(done(p.index(), Errors.INVALID_REQUIRED_ACKS, "acks must be -1, 0 or 1, not " + acks));
            } else {
                MemoryRecords records = p.records() instanceof MemoryRecords m ? m : null;
                ProduceRecordsCheck.Refusal refusal = ProduceRecordsCheck.check(version, records, transactionalId,
                        transactions);
                parts.add(refusal != null ? done(p.index(), refusal.error(), refusal.message())
                        : append(new TopicPartition(name, p.index()), records, deadlineNanos,
                                transactions ? transactionalId : null, TransactionCheck.forProduceVersion(version),
                                batch, counted));
            }
        }
        String resolved = name;
        return CompletableFuture.allOf(parts.toArray(CompletableFuture[]::new)).thenApply(v -> {
            List<PartitionProduceResponse> out = new ArrayList<>();
            parts.forEach(p -> out.add(p.join()));
            return new TopicProduceResponse().setName(t.name() == null || t.name().isEmpty() ? "" : resolved)
                    .setTopicId(topicId).setPartitionResponses(out);
        });
    }

    private CompletableFuture<PartitionProduceResponse> append(TopicPartition tp, MemoryRecords records,
            long deadlineNanos, String transactionalId, TransactionCheck check, VerificationBatch batch,
            boolean counted) {
        if (counted) {
            topicMetrics.produceRequest(tp.topic());
        }
        CompletableFuture<AppendResult> appended = transactionalId == null
                ? partitions.append(tp, records, deadlineNanos)
                : partitions.append(tp, records, deadlineNanos, transactionalId, check, batch);
        return appended.handle((AppendResult r, Throwable e) -> {
            if (e != null) {
                Errors code = PartitionErrors.toKafka(e);
                if (counted) {
                    topicMetrics.produceFailed(tp.topic(), code, records == null ? 0 : records.sizeInBytes());
                }
                PartitionProduceResponse failed = new PartitionProduceResponse().setIndex(tp.partition())
                        .setErrorCode(code.code()).setErrorMessage(PartitionErrors.message(e)).setBaseOffset(-1)
                        .setLogAppendTimeMs(-1).setLogStartOffset(-1);
                if (PartitionErrors.unwrap(e) instanceof PartitionLogException ple && ple.recordIndex() >= 0) {
                    // KIP-467: which record was refused (a field of v8+; older versions leave it out).
                    failed.setRecordErrors(List.of(new BatchIndexAndErrorMessage().setBatchIndex(ple.recordIndex())
                            .setBatchIndexErrorMessage(ple.getMessage())));
                }
                return failed;
            }
            if (r.baseOffset() >= 0) {
                topicMetrics.appended(tp.topic(), records.sizeInBytes(), r.lastOffset() - r.baseOffset() + 1);
            }
            return new PartitionProduceResponse().setIndex(tp.partition()).setErrorCode(Errors.NONE.code())
                    .setBaseOffset(r.baseOffset()).setLogAppendTimeMs(r.logAppendTimeMs())
                    .setLogStartOffset(r.logStartOffset());
        });
    }

    private static CompletableFuture<PartitionProduceResponse> done(int partition, Errors error, String message) {
        return CompletableFuture.completedFuture(new PartitionProduceResponse().setIndex(partition)
                .setErrorCode(error.code()).setErrorMessage(message).setBaseOffset(-1).setLogAppendTimeMs(-1)
                .setLogStartOffset(-1));
    }
}

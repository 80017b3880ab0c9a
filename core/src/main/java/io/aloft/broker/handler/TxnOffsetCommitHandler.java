package io.aloft.broker.handler;

import io.aloft.broker.api.ApiHandler;
import io.aloft.broker.api.RequestContext;
import io.aloft.broker.group.GroupCoordinator;
import io.aloft.broker.log.VerificationGuard;
import io.aloft.broker.metadata.MetadataCache;
import io.aloft.broker.partition.TransactionVerifier;
import io.aloft.controller.model.TopicInfo;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.internals.Topic;
import org.apache.kafka.common.message.TxnOffsetCommitRequestData;
import org.apache.kafka.common.message.TxnOffsetCommitRequestData.TxnOffsetCommitRequestPartition;
import org.apache.kafka.common.message.TxnOffsetCommitRequestData.TxnOffsetCommitRequestTopic;
import org.apache.kafka.common.message.TxnOffsetCommitResponseData;
import org.apache.kafka.common.message.TxnOffsetCommitResponseData.TxnOffsetCommitResponsePartition;
import org.apache.kafka.common.message.TxnOffsetCommitResponseData.TxnOffsetCommitResponseTopic;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.TxnOffsetCommitRequest;
import org.apache.kafka.common.requests.TxnOffsetCommitResponse;
import org.apache.kafka.common.resource.ResourceType;

/**
 * TxnOffsetCommit (KIP-98; member fencing from v3, KIP-447): a transactional producer's
 * {@code sendOffsetsToTransaction}. The group coordinator writes the offsets in the producer's
 * transaction; they become visible when the transaction commits. Answered once they are durable.
 * As in Kafka, offsets of a partition that does not exist (unlike OffsetCommit, which looks at the
 * topic only) get UNKNOWN_TOPIC_OR_PARTITION and only the others go to the coordinator.
 *
 * <p>Before the offsets are written, the transaction is checked at its coordinator for the group's
 * {@code __consumer_offsets} partition ({@link TransactionVerifier}, this broker's or another's), as
 * Kafka's group coordinator does (KIP-890): v0-4 come from transaction-version-1 clients, which
 * added the partition with AddOffsetsToTxn, so it is verified that they did (a stray or late
 * commit would otherwise open a transaction in the partition that nobody ends;
 * {@code transaction.partition.verification.enable=false} skips this); v5 is the
 * transaction-version-2 form, whose client sends no AddOffsetsToTxn, so the partition is added.
 * The check comes first, as in Kafka: a commit refused by it is answered its code whatever the
 * group would have said. As a partition leader does for a produce, the partition's log is asked
 * first ({@link GroupCoordinator#startTransactionVerification}): no check while the producer's
 * transaction is open there at this epoch already, and otherwise the write carries the log's guard,
 * so a transaction that ended between the check and the write is not reopened. The codes are
 * mapped in {@link TxnOffsetCommitChecks}.
 *
 * <p>Stateless; runs on the network thread, completes on a group coordinator shard's thread.
 */
public final class TxnOffsetCommitHandler implements ApiHandler<TxnOffsetCommitRequest> {
    /**
     * How long the coordinator may take to answer the check before the commit is answered as if it
     * could not be reached (the inter-broker client bounds its own requests; this bounds the rest).
     */
    static final long CHECK_TIMEOUT_MS = 30_000;

    private final GroupCoordinator coordinator;
    private final MetadataCache cache;
    private final TransactionVerifier transactions;

    /** @param transactions checks the transaction for the group's offsets partition (verifies, or adds for v5) */
    public TxnOffsetCommitHandler(GroupCoordinator coordinator, MetadataCache cache, TransactionVerifier transactions) {
        this.coordinator = coordinator;
        this.cache = cache;
        this.transactions = transactions;
    }

    @Override
    public ApiKeys apiKey() {
        return ApiKeys.TXN_OFFSET_COMMIT;
    }

    @Override
    public short maxVersion() {
        return 5;
    }

    @Override
    public CompletableFuture<AbstractResponse> handle(RequestContext context, TxnOffsetCommitRequest request) {
        TxnOffsetCommitRequestData data = request.data();
        // As Kafka: WRITE on the transactional id, READ on the group (each refuses the whole request), READ
        // on each topic (TOPIC_AUTHORIZATION_FAILED, before UNKNOWN_TOPIC_OR_PARTITION).
        if (!context.authorized(AclOperation.WRITE, ResourceType.TRANSACTIONAL_ID, data.transactionalId())) {
            return CompletableFuture.completedFuture(request.getErrorResponse(
                    Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED.exception()));
        }
        if (!context.authorized(AclOperation.READ, ResourceType.GROUP, data.groupId())) {
            return CompletableFuture.completedFuture(request.getErrorResponse(
                    Errors.GROUP_AUTHORIZATION_FAILED.exception()));
        }
        return commit(context, data, request.version());
    }

    /**
     * Checks the transaction for the group's offsets partition, then writes {@code data}'s offsets
     * (those of existing partitions; no check when there are none, or the group id is empty, which
     * the coordinator refuses first as Kafka does).
     */
    private CompletableFuture<TxnOffsetCommitResponseData> checkedCommit(TxnOffsetCommitRequestData data,
            short version) {
        if (data.groupId() == null || data.groupId().isEmpty()) {
            return coordinator.txnCommitOffsets(data);
        }
        CompletableFuture<VerificationGuard> started;
        try {
            started = coordinator.startTransactionVerification(data.groupId(), data.producerId(),
                    data.producerEpoch());
        } catch (RuntimeException e) {
            started = CompletableFuture.failedFuture(e);
        }
        return started.handle((guard, failure) -> {
            if (failure != null) {
                // The group's partition is not led here (NOT_COORDINATOR), or could not be opened.
                Throwable t = failure instanceof CompletionException && failure.getCause() != null
                        ? failure.getCause() : failure;
                return CompletableFuture.completedFuture(refused(data, TxnOffsetCommitChecks.error(Errors.forException(t), version)));
            }
            if (guard == VerificationGuard.SENTINEL) {
                return coordinator.txnCommitOffsets(data, guard); // open there at this epoch: nothing to check
            }
            return check(data, version).thenCompose(error -> error == Errors.NONE
                    ? coordinator.txnCommitOffsets(data, guard)
                    : CompletableFuture.completedFuture(refused(data, error)));
        }).thenCompose(response -> response);
    }

    /** The transaction coordinator's answer for the group's offsets partition, as the producer's code. */
    private CompletableFuture<Errors> check(TxnOffsetCommitRequestData data, short version) {
        TopicPartition offsets = new TopicPartition(Topic.GROUP_METADATA_TOPIC_NAME,
                coordinator.partitionFor(data.groupId()));
        CompletableFuture<Errors> answer;
        try {
            answer = transactions.check(data.transactionalId(), data.producerId(), data.producerEpoch(), offsets,
                    TxnOffsetCommitChecks.forVersion(version));
        } catch (RuntimeException e) {
            answer = CompletableFuture.failedFuture(e);
        }
        return answer.orTimeout(CHECK_TIMEOUT_MS, TimeUnit.MILLISECONDS)
                .handle((error, failure) -> TxnOffsetCommitChecks.error(failure != null ? null : error, version));
    }

    private static TxnOffsetCommitResponseData refused(TxnOffsetCommitRequestData data, Errors error) {
        TxnOffsetCommitResponseData out = new TxnOffsetCommitResponseData();
        for (TxnOffsetCommitRequestTopic t : data.topics()) {
            TxnOffsetCommitResponseTopic rt = new TxnOffsetCommitResponseTopic().setName(t.name());
            t.partitions().forEach(p -> rt.partitions().add(new TxnOffsetCommitResponsePartition()
                    .setPartitionIndex(p.partitionIndex()).setErrorCode(error.code())));
            out.topics().add(rt);
        }
        return out;
    }

    private CompletableFuture<AbstractResponse> commit(RequestContext context, TxnOffsetCommitRequestData data,
            short version) {
        MetadataCache.View view = cache.view();
        List<TxnOffsetCommitRequestTopic> known = new ArrayList<>();
        Map<String, List<Integer>> unknown = new LinkedHashMap<>();
        Map<String, List<Integer>> denied = new LinkedHashMap<>();
        for (TxnOffsetCommitRequestTopic t : data.topics()) {
            if (!context.authorized(AclOperation.READ, ResourceType.TOPIC, t.name())) {
                t.partitions().forEach(p -> denied.computeIfAbsent(t.name(), k -> new ArrayList<>())
                        .add(p.partitionIndex()));
                continue;
            }
            TopicInfo topic = view.topic(t.name());
            List<TxnOffsetCommitRequestPartition> existing = new ArrayList<>();
            for (TxnOffsetCommitRequestPartition p : t.partitions()) {
                if (topic != null && p.partitionIndex() >= 0 && p.partitionIndex() < topic.partitions().size()) {
                    existing.add(p);
                } else {
                    unknown.computeIfAbsent(t.name(), k -> new ArrayList<>()).add(p.partitionIndex());
                }
            }
            if (!existing.isEmpty()) {
                known.add(t.duplicate().setPartitions(existing));
            }
        }
        if (unknown.isEmpty() && denied.isEmpty()) {
            return checkedCommit(data, version).thenApply(TxnOffsetCommitResponse::new);
        }
        CompletableFuture<TxnOffsetCommitResponseData> committed = known.isEmpty()
                ? CompletableFuture.completedFuture(new TxnOffsetCommitResponseData())
                : checkedCommit(data.duplicate().setTopics(known), version);
        return committed.thenApply(response -> {
            addRefused(response, denied, Errors.TOPIC_AUTHORIZATION_FAILED);
            addRefused(response, unknown, Errors.UNKNOWN_TOPIC_OR_PARTITION);
            return new TxnOffsetCommitResponse(response);
        });
    }

    private static void addRefused(TxnOffsetCommitResponseData response, Map<String, List<Integer>> refused,
            Errors error) {
        refused.forEach((name, partitions) -> {
            TxnOffsetCommitResponseTopic rt = response.topics().stream().filter(t -> t.name().equals(name))
                    .findFirst().orElseGet(() -> {
                        TxnOffsetCommitResponseTopic added = new TxnOffsetCommitResponseTopic().setName(name);
                        response.topics().add(added);
                        return added;
                    });
            partitions.forEach(p -> rt.partitions().add(new TxnOffsetCommitResponsePartition()
                    .setPartitionIndex(p).setErrorCode(error.code())));
        });
    }
}

package io.aloft.broker.handler;

import io.aloft.broker.api.RequestContext;
import io.aloft.broker.share.state.SharePartitionKey;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;

/**
 * What the share-state handlers (Initialize/Read/Write/Delete/ReadShareGroupStateSummary) have in
 * common: brokers only (CLUSTER_ACTION on the cluster), an empty answer for an empty group id, and
 * each share partition answered on its own once every partition's call to the share coordinator has
 * completed (a negative partition index without asking, a failed call with {@link ShareStateErrors}).
 * The generated request and response classes share no types, so each handler walks its own topics and
 * partitions and hands each partition's result here.
 *
 * <p>One instance per request: {@link #ask} runs on the network thread while the handler builds the
 * response; the callbacks it registers run on the share coordinator's thread, each touching only its
 * own partition's result, and the response is built once all have completed.
 */
final class ShareStateAnswers {
    private final String groupId;
    private final List<CompletableFuture<?>> pending = new ArrayList<>();

    private ShareStateAnswers(String groupId) {
        this.groupId = groupId;
    }

    /**
     * Answers {@code request}: refused unless the caller is a broker, empty for an empty group id,
     * else {@code askEach} fills the response data (calling {@link #ask} for each share partition)
     * and {@code response} wraps it once every call has completed.
     */
    static CompletableFuture<AbstractResponse> answer(RequestContext context, AbstractRequest request,
            String groupId, Consumer<ShareStateAnswers> askEach, Supplier<AbstractResponse> response) {
        if (!context.authorizedOnCluster(AclOperation.CLUSTER_ACTION)) {
            return CompletableFuture.completedFuture(request.getErrorResponse(0,
                    Errors.CLUSTER_AUTHORIZATION_FAILED.exception()));
        }
        if (groupId == null || groupId.isEmpty()) {
            return CompletableFuture.completedFuture(response.get());
        }
        ShareStateAnswers answers = new ShareStateAnswers(groupId);
        askEach.accept(answers);
        return CompletableFuture.allOf(answers.pending.toArray(CompletableFuture<?>[]::new))
                .thenApply(v -> response.get());
    }

    /**
     * Answers one share partition into {@code result}: INVALID_REQUEST for a negative index without
     * calling the coordinator; else {@code call} for its key, then {@code setError} with the failure's
     * Kafka error or {@code onValue} with the value.
     */
    <R, V> void ask(R result, BiConsumer<R, ShareStateErrors> setError, Uuid topicId, int partition,
            Function<SharePartitionKey, CompletableFuture<V>> call, BiConsumer<R, V> onValue) {
        if (partition < 0) {
            setError.accept(result, ShareStateErrors.NEGATIVE_PARTITION);
            return;
        }
        pending.add(call.apply(new SharePartitionKey(groupId, topicId, partition)).handle((value, e) -> {
            if (e != null) {
                setError.accept(result, ShareStateErrors.of(e));
            } else {
                onValue.accept(result, value);
            }
            return null;
        }));
    }
}

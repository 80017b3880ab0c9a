package io.aloft.broker.handler;

import io.aloft.broker.api.ApiHandler;
import io.aloft.broker.api.RequestContext;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclBindingFilter;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.message.DeleteAclsResponseData;
import org.apache.kafka.common.message.DeleteAclsResponseData.DeleteAclsFilterResult;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.ApiError;
import org.apache.kafka.common.requests.DeleteAclsRequest;
import org.apache.kafka.common.requests.DeleteAclsResponse;

/**
 * DeleteAcls: removes every binding each filter matches (Kafka's filter semantics, MATCH and ANY
 * included) and answers, per filter, with the bindings it deleted once this broker no longer sees
 * them. As Kafka: ALTER on the cluster or CLUSTER_AUTHORIZATION_FAILED per filter; SECURITY_DISABLED
 * without an authorizer. Stateless; thread-safe.
 */
public final class DeleteAclsHandler implements ApiHandler<DeleteAclsRequest> {
    @Override
    public ApiKeys apiKey() {
        return ApiKeys.DELETE_ACLS;
    }

    @Override
    public CompletableFuture<AbstractResponse> handle(RequestContext context, DeleteAclsRequest request) {
        List<AclBindingFilter> filters = request.filters();
        if (context.authorizer() == null || !context.authorizedOnCluster(AclOperation.ALTER)) {
            ApiError error = context.authorizer() == null
                    ? new ApiError(Errors.SECURITY_DISABLED, "No Authorizer is configured.")
                    : new ApiError(Errors.CLUSTER_AUTHORIZATION_FAILED, null);
            return CompletableFuture.completedFuture(response(filters.stream().map(f -> new DeleteAclsFilterResult()
                    .setErrorCode(error.error().code()).setErrorMessage(error.message())).toList(), request));
        }
        List<List<AclBinding>> matched = new ArrayList<>();
        Set<AclBinding> all = new LinkedHashSet<>();
        for (AclBindingFilter f : filters) {
            List<AclBinding> m = context.authorizer().bindings(f);
            matched.add(m);
            all.addAll(m);
        }
        CompletableFuture<Void> deleted = all.isEmpty() ? CompletableFuture.completedFuture(null)
                : context.authorizer().delete(List.copyOf(all));
        return deleted.handle((v, e) -> {
            ApiError error = e == null ? ApiError.NONE : ApiError.fromThrowable(e);
            List<DeleteAclsFilterResult> results = new ArrayList<>();
            for (List<AclBinding> m : matched) {
                results.add(new DeleteAclsFilterResult().setMatchingAcls(m.stream()
                        .map(b -> DeleteAclsResponse.matchingAcl(b, error)).toList()));
            }
            return response(results, request);
        });
    }

    private static AbstractResponse response(List<DeleteAclsFilterResult> results, DeleteAclsRequest request) {
        return new DeleteAclsResponse(new DeleteAclsResponseData().setFilterResults(results), request.version());
    }
}

package io.aloft.broker.handler;

import io.aloft.broker.api.ApiHandler;
import io.aloft.broker.api.RequestContext;
import io.aloft.broker.security.acl.Authorizer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.message.CreateAclsRequestData.AclCreation;
import org.apache.kafka.common.message.CreateAclsResponseData;
import org.apache.kafka.common.message.CreateAclsResponseData.AclCreationResult;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.ApiError;
import org.apache.kafka.common.requests.CreateAclsRequest;
import org.apache.kafka.common.requests.CreateAclsResponse;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourceType;

/**
 * CreateAcls: stores each valid binding in the controller (one key per binding, see AclKeys) and
 * answers once this broker sees them. As Kafka: needs ALTER on the cluster
 * (CLUSTER_AUTHORIZATION_FAILED for every creation otherwise); without an authorizer every creation
 * gets SECURITY_DISABLED; a creation Kafka's controller would refuse (a pattern type other than
 * LITERAL or PREFIXED, ANY or UNKNOWN operation or permission, an empty name, a cluster resource not
 * named kafka-cluster, a principal that is not type:name) gets INVALID_REQUEST, the others are
 * still created. Stateless; thread-safe.
 */
public final class CreateAclsHandler implements ApiHandler<CreateAclsRequest> {
    @Override
    public ApiKeys apiKey() {
        return ApiKeys.CREATE_ACLS;
    }

    @Override
    public CompletableFuture<AbstractResponse> handle(RequestContext context, CreateAclsRequest request) {
        List<AclCreation> creations = request.aclCreations();
        if (context.authorizer() == null || !context.authorizedOnCluster(AclOperation.ALTER)) {
            ApiError error = context.authorizer() == null
                    ? new ApiError(Errors.SECURITY_DISABLED, "No Authorizer is configured.")
                    : new ApiError(Errors.CLUSTER_AUTHORIZATION_FAILED, null);
            return CompletableFuture.completedFuture(response(creations.stream().map(c -> result(error)).toList()));
        }
        List<AclCreationResult> results = new ArrayList<>();
        List<AclBinding> valid = new ArrayList<>();
        for (AclCreation creation : creations) {
            AclBinding binding = CreateAclsRequest.aclBinding(creation);
            String invalid = invalid(binding);
            results.add(invalid == null ? new AclCreationResult() : result(new ApiError(Errors.INVALID_REQUEST,
                    invalid)));
            if (invalid == null) {
                valid.add(binding);
            }
        }
        if (valid.isEmpty()) {
            return CompletableFuture.completedFuture(response(results));
        }
        return context.authorizer().create(valid).handle((v, e) -> {
            if (e != null) {
                ApiError error = ApiError.fromThrowable(e);
                results.stream().filter(r -> r.errorCode() == Errors.NONE.code())
                        .forEach(r -> r.setErrorCode(error.error().code()).setErrorMessage(error.message()));
            }
            return response(results);
        });
    }

    /** Why Kafka would refuse {@code binding}, or null if it is fine. */
    static String invalid(AclBinding binding) {
        PatternType pattern = binding.pattern().patternType();
        if (pattern != PatternType.LITERAL && pattern != PatternType.PREFIXED) {
            return "Invalid patternType " + pattern;
        }
        ResourceType type = binding.pattern().resourceType();
        if (type == ResourceType.ANY || type == ResourceType.UNKNOWN) {
            return "Invalid resourceType " + type;
        }
        AclOperation op = binding.entry().operation();
        if (op == AclOperation.ANY || op == AclOperation.UNKNOWN) {
            return "Invalid operation " + op;
        }
        AclPermissionType permission = binding.entry().permissionType();
        if (permission == AclPermissionType.ANY || permission == AclPermissionType.UNKNOWN) {
            return "Invalid permissionType " + permission;
        }
        String name = binding.pattern().name();
        if (type == ResourceType.CLUSTER && !Authorizer.CLUSTER_NAME.equals(name)) {
            return "The only valid name for the CLUSTER resource is " + Authorizer.CLUSTER_NAME;
        }
        if (name == null || name.isEmpty()) {
            return "Invalid empty resource name";
        }
        String principal = binding.entry().principal();
        int colon = principal == null ? -1 : principal.indexOf(':');
        if (colon <= 0 || colon == principal.length() - 1) {
            return "Could not parse principal from `" + principal + "` (no colon is present separating the "
                    + "principal type from the principal name)";
        }
        if (binding.entry().host() == null || binding.entry().host().isEmpty()) {
            return "Invalid empty host";
        }
        return null;
    }

    private static AclCreationResult result(ApiError error) {
        return new AclCreationResult().setErrorCode(error.error().code()).setErrorMessage(error.message());
    }

    private static CreateAclsResponse response(List<AclCreationResult> results) {
        return new CreateAclsResponse(new CreateAclsResponseData().setResults(results));
    }
}

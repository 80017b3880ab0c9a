package io.aloft.broker.handler;

import io.aloft.broker.api.ApiHandler;
import io.aloft.broker.api.RequestContext;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.message.DescribeAclsResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.DescribeAclsRequest;
import org.apache.kafka.common.requests.DescribeAclsResponse;

/**
 * DescribeAcls: the bindings the request's filter matches (Kafka's filter semantics, including
 * pattern type MATCH: the literal name, the literal '*' and every prefix pattern of the name), from
 * this broker's view of the controller's ACLs. As Kafka: DESCRIBE on the cluster or
 * CLUSTER_AUTHORIZATION_FAILED; SECURITY_DISABLED without an authorizer. Stateless; thread-safe.
 */
public final class DescribeAclsHandler implements ApiHandler<DescribeAclsRequest> {
    @Override
    public ApiKeys apiKey() {
        return ApiKeys.DESCRIBE_ACLS;
    }

    @Override
    public CompletableFuture<AbstractResponse> handle(RequestContext context, DescribeAclsRequest request) {
        DescribeAclsResponseData data = new DescribeAclsResponseData();
        if (context.authorizer() == null) {
            data.setErrorCode(Errors.SECURITY_DISABLED.code()).setErrorMessage("No Authorizer is configured.");
        } else if (!context.authorizedOnCluster(AclOperation.DESCRIBE)) {
            data.setErrorCode(Errors.CLUSTER_AUTHORIZATION_FAILED.code())
                    .setErrorMessage(Errors.CLUSTER_AUTHORIZATION_FAILED.message());
        } else {
            data.setResources(DescribeAclsResponse.aclsResources(context.authorizer().bindings(request.filter())));
        }
        return CompletableFuture.completedFuture(new DescribeAclsResponse(data, request.version()));
    }
}

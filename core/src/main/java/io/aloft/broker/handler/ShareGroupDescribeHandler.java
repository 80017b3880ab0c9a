package io.aloft.broker.handler;

import io.aloft.broker.api.ApiHandler;
import io.aloft.broker.api.RequestContext;
import io.aloft.broker.group.ShareGroupService;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.message.ShareGroupDescribeResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.ShareGroupDescribeRequest;
import org.apache.kafka.common.requests.ShareGroupDescribeResponse;
import org.apache.kafka.common.resource.ResourceType;

/**
 * ShareGroupDescribe (KIP-932): epochs, assignor, members with their assignments. Groups one may not
 * DESCRIBE get GROUP_AUTHORIZATION_FAILED. Registered only when share groups are enabled. Stateless.
 */
public final class ShareGroupDescribeHandler implements ApiHandler<ShareGroupDescribeRequest> {
    private final ShareGroupService shareGroups;

    public ShareGroupDescribeHandler(ShareGroupService shareGroups) {
        this.shareGroups = shareGroups;
    }

    @Override
    public ApiKeys apiKey() {
        return ApiKeys.SHARE_GROUP_DESCRIBE;
    }

    /** v1, as Kafka 4.3 serves. */
    @Override
    public short minVersion() {
        return 1;
    }

    @Override
    public short maxVersion() {
        return 1;
    }

    @Override
    public CompletableFuture<AbstractResponse> handle(RequestContext context, ShareGroupDescribeRequest request) {
        List<String> refused = new ArrayList<>();
        List<String> allowed = new ArrayList<>();
        for (String g : request.data().groupIds()) {
            (context.authorized(AclOperation.DESCRIBE, ResourceType.GROUP, g) ? allowed : refused).add(g);
        }
        CompletableFuture<ShareGroupDescribeResponseData> described = allowed.isEmpty()
                ? CompletableFuture.completedFuture(new ShareGroupDescribeResponseData())
                : shareGroups.describe(request.data().duplicate().setGroupIds(allowed));
        return described.thenApply(data -> {
            refused.forEach(g -> data.groups().add(new ShareGroupDescribeResponseData.DescribedGroup()
                    .setGroupId(g).setErrorCode(Errors.GROUP_AUTHORIZATION_FAILED.code())
                    .setErrorMessage(Errors.GROUP_AUTHORIZATION_FAILED.message())));
            return new ShareGroupDescribeResponse(data);
        });
    }
}

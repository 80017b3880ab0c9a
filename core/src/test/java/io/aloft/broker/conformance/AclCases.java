package io.aloft.broker.conformance;

import java.util.List;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclBindingFilter;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.message.CreateAclsRequestData;
import org.apache.kafka.common.message.DeleteAclsRequestData;
import org.apache.kafka.common.message.DescribeAclsRequestData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.requests.CreateAclsRequest;
import org.apache.kafka.common.requests.DeleteAclsRequest;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;

/**
 * CreateAcls, DescribeAcls and DeleteAcls on brokers without an authorizer (both targets run
 * without one): Kafka answers SECURITY_DISABLED, per creation, per filter, or for the request. The
 * ACL semantics with an authorizer are tested in {@code security.acl}.
 *
 * <p>Stateless.
 */
final class AclCases {
    private AclCases() {
    }

    static List<Shape> shapes() {
        AclBinding binding = new AclBinding(new ResourcePattern(ResourceType.TOPIC, "conf-acl", PatternType.LITERAL),
                new AccessControlEntry("User:alice", "*", AclOperation.READ, AclPermissionType.ALLOW));
        return List.of(
                Shape.of(ApiKeys.CREATE_ACLS, "without an authorizer", (t, v) -> new CreateAclsRequestData()
                        .setCreations(List.of(CreateAclsRequest.aclCreation(binding)))),
                Shape.of(ApiKeys.DESCRIBE_ACLS, "without an authorizer", (t, v) -> new DescribeAclsRequestData()
                        .setResourceTypeFilter(ResourceType.ANY.code()).setResourceNameFilter(null)
                        .setPatternTypeFilter(PatternType.ANY.code()).setPrincipalFilter(null).setHostFilter(null)
                        .setOperation(AclOperation.ANY.code()).setPermissionType(AclPermissionType.ANY.code())),
                Shape.of(ApiKeys.DELETE_ACLS, "without an authorizer", (t, v) -> new DeleteAclsRequestData()
                        .setFilters(List.of(DeleteAclsRequest.deleteAclsFilter(AclBindingFilter.ANY)))));
    }
}

package io.aloft.broker.handler;

import io.aloft.broker.api.RequestContext;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.resource.ResourceType;

/**
 * The ACL check of the config APIs (DescribeConfigs with DESCRIBE_CONFIGS, AlterConfigs and
 * IncrementalAlterConfigs with ALTER_CONFIGS), as Kafka maps config resources to ACL resources: a
 * topic to its topic, a group to its group, a broker, broker logger or client-metrics resource to
 * the cluster. Stateless.
 */
final class ConfigAcls {
    private ConfigAcls() {
    }

    /** The error for a refused {@code op} on config resource {@code name} of type id {@code typeId}, or NONE. */
    static Errors check(RequestContext context, AclOperation op, byte typeId, String name) {
        ConfigResource.Type type = ConfigResource.Type.forId(typeId);
        return switch (type) {
            case TOPIC -> context.authorized(op, ResourceType.TOPIC, name) ? Errors.NONE
                    : Errors.TOPIC_AUTHORIZATION_FAILED;
            case GROUP -> context.authorized(op, ResourceType.GROUP, name) ? Errors.NONE
                    : Errors.GROUP_AUTHORIZATION_FAILED;
            case BROKER, BROKER_LOGGER, CLIENT_METRICS -> context.authorizedOnCluster(op) ? Errors.NONE
                    : Errors.CLUSTER_AUTHORIZATION_FAILED;
            default -> Errors.NONE; // unknown types get the handler's own INVALID_REQUEST
        };
    }
}

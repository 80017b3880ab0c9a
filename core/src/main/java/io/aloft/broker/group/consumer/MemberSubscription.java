package io.aloft.broker.group.consumer;

import java.util.List;

/**
 * What a member told the coordinator about itself: who it is and what it subscribes to. The value
 * of the member's metadata record. Immutable.
 *
 * @param topicNames subscribed topic names, sorted (empty when subscribing by regex)
 * @param topicRegex the RE2J pattern subscribed to, or null
 * @param serverAssignor the assignor the member asked for, or null for the group's default
 * @param rebalanceTimeoutMs how long the member may take to revoke partitions
 */
public record MemberSubscription(String instanceId, String rackId, String clientId, String clientHost,
                                 List<String> topicNames, String topicRegex, String serverAssignor,
                                 int rebalanceTimeoutMs) {
    public MemberSubscription {
        topicNames = List.copyOf(topicNames.stream().sorted().distinct().toList());
    }
}

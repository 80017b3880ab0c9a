package io.aloft.broker.group;

/**
 * States of a classic group, named as Kafka reports them in ListGroups and DescribeGroups.
 * Immutable.
 *
 * <pre>
 * Empty --join--> PreparingRebalance --all joined / timeout--> CompletingRebalance --leader sync--> Stable
 *   ^                   ^    |                                         |                           |
 *   |                   |    +--no member left: generation+1--> Empty  +--member change--+--------+
 *   +-- (delete) Dead   +--------------------------------------------------------------+
 * </pre>
 */
public enum GroupState {
    EMPTY("Empty"),
    PREPARING_REBALANCE("PreparingRebalance"),
    COMPLETING_REBALANCE("CompletingRebalance"),
    STABLE("Stable"),
    DEAD("Dead");

    private final String protocolName;

    GroupState(String protocolName) {
        this.protocolName = protocolName;
    }

    /** The name on the wire (ListGroups, DescribeGroups, the ListGroups states filter). */
    public String protocolName() {
        return protocolName;
    }
}

package io.aloft.broker.group.consumer;

import java.util.Objects;

/**
 * A member of a consumer group: its subscription and its current assignment, as the member's two
 * records last said. Immutable: a change makes a new member.
 */
public record ConsumerGroupMember(String memberId, MemberSubscription subscription, MemberAssignment current) {

    /** The epoch a static member has while it is away (it left with epoch -2 and may come back). */
    public static final int STATIC_AWAY_EPOCH = -2;

    public ConsumerGroupMember {
        Objects.requireNonNull(memberId, "memberId");
        Objects.requireNonNull(current, "current");
    }

    public int epoch() {
        return current.epoch();
    }

    public String instanceId() {
        return subscription == null ? null : subscription.instanceId();
    }

    /** Whether this is a static member that left with epoch -2 and keeps its assignment for now. */
    public boolean isAway() {
        return current.epoch() == STATIC_AWAY_EPOCH;
    }

    ConsumerGroupMember with(MemberSubscription s) {
        return new ConsumerGroupMember(memberId, s, current);
    }

    ConsumerGroupMember with(MemberAssignment a) {
        return new ConsumerGroupMember(memberId, subscription, a);
    }
}

package io.aloft.controller.model;

/** A registered broker's standing with the controller. */
public enum BrokerState {
    /** Heartbeating; may own partitions. */
    ACTIVE,
    /** Its session lapsed (or it has not heartbeaten since the controller fenced it): owns nothing. */
    FENCED,
    /** Shutting down in a controlled way: its partitions move to others, it receives no new ones. */
    DRAINING
}

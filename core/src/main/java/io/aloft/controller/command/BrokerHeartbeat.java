package io.aloft.controller.command;

/**
 * A broker is alive. A fenced broker that heartbeats with its current epoch becomes active again.
 * Replies with the broker's {@link io.aloft.controller.model.BrokerState}.
 */
public record BrokerHeartbeat(int brokerId, long brokerEpoch) {
}

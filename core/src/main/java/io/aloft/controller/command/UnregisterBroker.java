package io.aloft.controller.command;

/** Removes a broker from the cluster (decommissioning); its partitions move to active brokers. */
public record UnregisterBroker(int brokerId) {
}

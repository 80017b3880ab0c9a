package io.aloft.controller.command;

/** Controlled shutdown: the broker's partitions move to active brokers and it gets no new ones. */
public record DrainBroker(int brokerId, long brokerEpoch) {
}

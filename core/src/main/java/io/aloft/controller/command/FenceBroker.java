package io.aloft.controller.command;

/**
 * Written by the controller leader when a broker's heartbeats lapse: the broker is fenced and its
 * partitions move to active brokers. Carries the epoch the leader saw lapse, so a fence that races
 * with a re-registration is rejected instead of fencing the new incarnation.
 */
public record FenceBroker(int brokerId, long brokerEpoch) {
}

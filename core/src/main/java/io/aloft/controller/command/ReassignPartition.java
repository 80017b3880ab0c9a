package io.aloft.controller.command;

/**
 * Moves a partition to another active broker, raising its leader epoch. Moving it to the broker
 * that already has it is a no-op. Replies with the topic.
 */
public record ReassignPartition(String name, int partition, int targetBrokerId) {
}

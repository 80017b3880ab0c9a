package io.aloft.controller.command;

/**
 * Reserves {@code count} consecutive idempotent-producer ids for a broker, which hands them out to
 * producers (InitProducerId) without asking the controller each time. Replies with the first id.
 */
public record AllocateProducerIds(int brokerId, int count) {
}

package io.aloft.controller.command;

import java.util.Objects;
import java.util.UUID;

/**
 * A command as it travels through the replicated log.
 *
 * @param clientId the sending client (one per {@code ControllerClient} instance)
 * @param sequence per-client request number, increasing; a retry reuses it, so the state machine
 *     applies the command once and answers the retry with the first reply
 * @param nowMs the sender's clock (the state's clock is the largest seen, so replicas agree)
 * @param command one of the command records with a schema in {@code io.aloft.controller.codec.ControllerSchemas}
 */
public record Request(UUID clientId, long sequence, long nowMs, Object command) {
    public Request {
        Objects.requireNonNull(clientId, "clientId");
        Objects.requireNonNull(command, "command");
    }
}

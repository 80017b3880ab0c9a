package io.aloft.controller.client;

import io.aloft.controller.command.Request;
import java.util.concurrent.CompletableFuture;

/** Test access to {@link ControllerClient}'s package-private request sending. */
public final class ClientAccess {
    private ClientAccess() {
    }

    /** Sends {@code request} unchanged: the same bytes a retry of it would carry. */
    public static CompletableFuture<Object> submitRequest(ControllerClient client, Request request) {
        return client.submitRequest(request);
    }

    /** The log index this client's reads wait for. */
    public static long lastSeenIndex(ControllerClient client) {
        return client.lastSeenIndex();
    }
}

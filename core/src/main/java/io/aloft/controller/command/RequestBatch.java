package io.aloft.controller.command;

import java.util.List;

/**
 * Several requests in one log entry, applied one after the other, each on its own (one may fail
 * while the others succeed; each keeps its own id for idempotent retries). The reply's value is
 * the list of their replies, in order. Clients batch commands that are submitted while earlier
 * ones are still in flight, so a busy broker pays one Raft round for many commits.
 */
public record RequestBatch(List<Request> requests) {
    public RequestBatch {
        requests = List.copyOf(requests);
        if (requests.isEmpty()) {
            throw new IllegalArgumentException("empty batch");
        }
    }
}

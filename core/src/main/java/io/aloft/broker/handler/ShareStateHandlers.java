package io.aloft.broker.handler;

import io.aloft.broker.api.ApiHandler;
import io.aloft.broker.share.state.ShareCoordinator;
import java.util.List;

/**
 * The handlers of the share coordinator's broker-to-broker APIs (KIP-932: Initialize, Read, Write,
 * Delete and ReadShareGroupStateSummary), registered only with share groups on
 * ({@code aloft.share.version} 1), so ApiVersions advertises them only then, as Kafka does on every
 * listener. FindCoordinator's key type 2 is served by its own handler, given the coordinator's topic.
 */
public final class ShareStateHandlers {
    private ShareStateHandlers() {
    }

    public static List<ApiHandler<?>> create(ShareCoordinator coordinator) {
        return List.of(
                new InitializeShareGroupStateHandler(coordinator),
                new ReadShareGroupStateHandler(coordinator),
                new WriteShareGroupStateHandler(coordinator),
                new DeleteShareGroupStateHandler(coordinator),
                new ReadShareGroupStateSummaryHandler(coordinator));
    }
}

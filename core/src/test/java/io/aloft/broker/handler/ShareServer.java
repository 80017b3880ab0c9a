package io.aloft.broker.handler;

import io.aloft.broker.api.ApiHandler;
import io.aloft.broker.network.KafkaServer;
import io.aloft.broker.network.RequestDispatcher;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A real network server (one network thread) serving ApiVersions, ShareFetch and ShareAcknowledge
 * from the handlers of a {@link ShareFixture}, for tests speaking raw frames. Not thread-safe.
 */
final class ShareServer implements AutoCloseable {
    private final KafkaServer server;

    ShareServer(ShareFetchHandler fetch, ShareAcknowledgeHandler acknowledge) throws InterruptedException {
        AtomicReference<RequestDispatcher> dispatcher = new AtomicReference<>();
        List<ApiHandler<?>> handlers = List.of(new ApiVersionsHandler(() -> dispatcher.get().apiVersions()), fetch,
                acknowledge);
        dispatcher.set(new RequestDispatcher(handlers));
        server = KafkaServer.start(List.of(new KafkaServer.Listener("PLAINTEXT", "127.0.0.1", 0)), 1 << 20, 1,
                dispatcher.get());
    }

    String bootstrap() {
        return "127.0.0.1:" + server.port("PLAINTEXT");
    }

    @Override
    public void close() {
        server.close();
    }
}

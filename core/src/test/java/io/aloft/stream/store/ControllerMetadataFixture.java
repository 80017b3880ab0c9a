package io.aloft.stream.store;

import io.aloft.controller.TestQuorum;
import io.aloft.controller.client.ControllerClient;
import io.aloft.controller.client.ControllerStreamMetadata;
import io.aloft.stream.metadata.StreamMetadata;
import java.nio.file.Path;

/** A one-voter controller quorum and a client: the Ratis-backed metadata s3stream's store tests run on here. */
final class ControllerMetadataFixture implements AutoCloseable {
    private final TestQuorum quorum;
    private final ControllerClient client;

    ControllerMetadataFixture(Path dir) throws Exception {
        quorum = new TestQuorum(dir, 1);
        quorum.awaitLeader();
        client = quorum.newClient();
    }

    StreamMetadata metadata() {
        return new ControllerStreamMetadata(client);
    }

    @Override
    public void close() throws Exception {
        try {
            client.close();
        } finally {
            quorum.close();
        }
    }
}

package io.aloft.stream.store;

import io.aloft.stream.metadata.StreamMetadata;

/** s3stream's stream-store tests, with metadata on a one-voter Ratis controller instead of in memory. */
class ControllerStreamStoreTest extends StreamStoreTest {
    private ControllerMetadataFixture controller;

    @Override
    StreamMetadata newMetadata() throws Exception {
        controller = new ControllerMetadataFixture(dir.resolve("controller"));
        return controller.metadata();
    }

    @Override
    void closeMetadata() throws Exception {
        controller.close();
    }
}

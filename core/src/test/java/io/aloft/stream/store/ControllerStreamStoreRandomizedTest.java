package io.aloft.stream.store;

import io.aloft.stream.metadata.StreamMetadata;

/** s3stream's randomized stream-store test, with metadata on a one-voter Ratis controller. */
class ControllerStreamStoreRandomizedTest extends StreamStoreRandomizedTest {
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

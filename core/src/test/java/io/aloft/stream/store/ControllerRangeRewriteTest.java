package io.aloft.stream.store;

import io.aloft.stream.metadata.StreamMetadata;

/** s3stream's range-rewrite tests, with metadata on a one-voter Ratis controller (feature level 2). */
class ControllerRangeRewriteTest extends RangeRewriteTest {
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

package io.aloft.stream.storage;

/**
 * The contract on the test-only in-memory backend, so tests elsewhere that use it get the same
 * semantics as the real backends.
 */
class MemoryObjectStorageTest extends ObjectStorageContract {

    @Override
    protected ObjectStorage open(ObjectStorageOptions options) {
        return new MemoryObjectStorage(options.listPageSize());
    }
}

package io.aloft.stream.storage;

import static io.aloft.stream.storage.ObjectStorageContract.await;
import static io.aloft.stream.storage.ObjectStorageContract.failure;
import static io.aloft.stream.storage.ObjectStorageContract.utf8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.aloft.stream.storage.ObjectStorageStats.Operation;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The contract on S3, against a real S3 server process (versitygw; MinIO with
 * {@code -Daloft.test.s3=minio}). Every storage opened gets a fresh bucket.
 */
class S3ObjectStorageTest extends ObjectStorageContract {

    @RegisterExtension
    static final S3ServerExtension S3 = new S3ServerExtension();

    @Override
    protected ObjectStorage open(ObjectStorageOptions options) {
        return ObjectStorages.open(S3.newBucketUrl(), options);
    }

    @Test
    void get_missingBucket_failsWithStorageExceptionNotNotFound() {
        String url = S3.server().url("no-such-bucket-" + System.nanoTime());
        try (ObjectStorage missing = ObjectStorages.open(url)) {
            Throwable e = failure(missing.get("k"));

            assertInstanceOf(ObjectStorageException.class, e);
            assertFalse(e instanceof ObjectNotFoundException, e.toString());
            assertTrue(e.getMessage().contains("NoSuchBucket"), e.getMessage());
        }
    }

    @Test
    void put_wrongSecretKey_failsWithStorageExceptionAndIsNotRetried() {
        String url = S3.url().replaceAll("secretKey=[^&]*", "secretKey=wrong-secret");
        try (ObjectStorage wrong = ObjectStorages.open(url)) {
            Throwable e = failure(wrong.put("k", utf8("v")));

            assertInstanceOf(ObjectStorageException.class, e);
            assertTrue(e.getMessage().contains("403"), e.getMessage());
            assertEquals(0, wrong.stats().retries(Operation.PUT));
            assertEquals(1, wrong.stats().failures(Operation.PUT));
        }
    }

    @Test
    void requests_reportOneLatencyEachToTheListener_failuresNone() throws Exception {
        java.util.List<Operation> timed = new java.util.concurrent.CopyOnWriteArrayList<>();
        storage.stats().requestLatencyTo((operation, nanos) -> {
            assertTrue(nanos >= 0);
            timed.add(operation);
        });
        await(storage.put("k", utf8("v")));
        assertEquals("v", new String(ObjectStorageContract.bytes(await(storage.get("k"))),
                java.nio.charset.StandardCharsets.UTF_8));
        failure(storage.get("missing"));
        assertEquals(java.util.List.of(Operation.PUT, Operation.GET), timed);
    }

    @Test
    void open_s3Url_choosesS3Backend() throws Exception {
        assertInstanceOf(S3ObjectStorage.class, storage);
        await(storage.put("k", utf8("v")));
    }
}

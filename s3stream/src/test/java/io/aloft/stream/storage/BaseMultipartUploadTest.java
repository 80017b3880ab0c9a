package io.aloft.stream.storage;

import static io.aloft.stream.storage.ObjectStorageContract.await;
import static io.aloft.stream.storage.ObjectStorageContract.failure;
import static io.aloft.stream.storage.ObjectStorageContract.utf8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.NavigableMap;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/** The multipart state machine, driven by hand-completed futures so every interleaving is exact. */
class BaseMultipartUploadTest {

    /** Records calls and lets the test decide when and how each one completes. */
    private static final class ScriptedUpload extends BaseMultipartUpload {
        final List<CompletableFuture<String>> parts = new ArrayList<>();
        final List<CompletableFuture<Void>> completes = new ArrayList<>();
        final List<CompletableFuture<Void>> aborts = new ArrayList<>();
        NavigableMap<Integer, Part> completedWith;

        ScriptedUpload() {
            super("key");
        }

        @Override
        CompletableFuture<String> sendPart(int partNumber, ByteBuffer data) {
            CompletableFuture<String> f = new CompletableFuture<>();
            parts.add(f);
            return f;
        }

        @Override
        CompletableFuture<Void> sendComplete(NavigableMap<Integer, Part> parts) {
            completedWith = parts;
            CompletableFuture<Void> f = new CompletableFuture<>();
            completes.add(f);
            return f;
        }

        @Override
        CompletableFuture<Void> sendAbort() {
            CompletableFuture<Void> f = new CompletableFuture<>();
            aborts.add(f);
            return f;
        }
    }

    @Test
    void complete_partStillInFlight_failsAndUploadStaysOpen() throws Exception {
        ScriptedUpload upload = new ScriptedUpload();
        CompletableFuture<Void> part = upload.uploadPart(1, utf8("p"));

        IllegalStateException e = assertInstanceOf(IllegalStateException.class, failure(upload.complete()));
        assertTrue(e.getMessage().contains("in flight"), e.getMessage());

        upload.parts.get(0).complete("tag-1");
        await(part);
        CompletableFuture<Void> complete = upload.complete();
        assertEquals("tag-1", upload.completedWith.get(1).tag());
        upload.completes.get(0).complete(null);
        await(complete);
    }

    @Test
    void complete_sendFails_canBeRetried() throws Exception {
        ScriptedUpload upload = new ScriptedUpload();
        CompletableFuture<Void> part = upload.uploadPart(1, utf8("p"));
        upload.parts.get(0).complete("t");
        await(part);

        CompletableFuture<Void> first = upload.complete();
        upload.completes.get(0).completeExceptionally(new ObjectStorageException(
                ObjectStorageStats.Operation.MULTIPART_COMPLETE, "key", "scripted", null));
        assertInstanceOf(ObjectStorageException.class, failure(first));

        CompletableFuture<Void> second = upload.complete();
        upload.completes.get(1).complete(null);
        await(second);
        assertInstanceOf(IllegalStateException.class, failure(upload.abort()));
    }

    @Test
    void uploadPart_whileCompleting_isRefused() {
        ScriptedUpload upload = new ScriptedUpload();
        CompletableFuture<Void> part = upload.uploadPart(1, utf8("p"));
        upload.parts.get(0).complete("t");
        part.join();
        upload.complete();

        assertInstanceOf(IllegalStateException.class, failure(upload.uploadPart(2, utf8("late"))));
        assertInstanceOf(IllegalStateException.class, failure(upload.abort()));
        assertEquals(1, upload.parts.size());
    }

    @Test
    void uploadPart_sendFails_partIsNotRecorded() {
        ScriptedUpload upload = new ScriptedUpload();
        CompletableFuture<Void> part = upload.uploadPart(1, utf8("p"));
        upload.parts.get(0).completeExceptionally(new ObjectStorageException(
                ObjectStorageStats.Operation.MULTIPART_PART, "key", "scripted", null));

        assertInstanceOf(ObjectStorageException.class, failure(part));
        IllegalStateException e = assertInstanceOf(IllegalStateException.class, failure(upload.complete()));
        assertTrue(e.getMessage().contains("no part"), e.getMessage());
    }

    @Test
    void abort_sendFails_returnsToOpenAndCanRetry() throws Exception {
        ScriptedUpload upload = new ScriptedUpload();
        CompletableFuture<Void> first = upload.abort();
        upload.aborts.get(0).completeExceptionally(new ObjectStorageException(
                ObjectStorageStats.Operation.MULTIPART_ABORT, "key", "scripted", null));
        assertInstanceOf(ObjectStorageException.class, failure(first));

        CompletableFuture<Void> second = upload.abort();
        upload.aborts.get(1).complete(null);
        await(second);
        await(upload.abort());
        assertEquals(2, upload.aborts.size());
    }
}

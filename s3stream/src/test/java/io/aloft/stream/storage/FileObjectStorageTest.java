package io.aloft.stream.storage;

import static io.aloft.stream.storage.ObjectStorageContract.await;
import static io.aloft.stream.storage.ObjectStorageContract.failure;
import static io.aloft.stream.storage.ObjectStorageContract.keys;
import static io.aloft.stream.storage.ObjectStorageContract.string;
import static io.aloft.stream.storage.ObjectStorageContract.utf8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The contract on the file backend, plus what is particular to files. */
class FileObjectStorageTest extends ObjectStorageContract {

    @TempDir
    Path tempDir;

    @Override
    protected ObjectStorage open(ObjectStorageOptions options) {
        return ObjectStorages.open(tempDir.resolve(UUID.randomUUID().toString()).toUri().toString(), options);
    }

    private Path root() {
        return Path.of(storage.toString().replaceAll("^FileObjectStorage\\{(.*)}$", "$1"));
    }

    @Test
    void put_nestedKey_isOneFileAtThatPathAndNoTempFilesRemain() throws Exception {
        await(storage.put("a/b/c.obj", utf8("hello")));

        assertEquals("hello", Files.readString(root().resolve("a/b/c.obj")));
        try (var tmp = Files.walk(root().resolve(FileObjectStorage.TMP_DIR))) {
            assertEquals(0, tmp.filter(Files::isRegularFile).count());
        }
    }

    @Test
    void put_largerThanOneSyncChunk_isWrittenWholeFromASlice() throws Exception {
        byte[] data = new byte[2 * FileObjectStorage.SYNC_CHUNK_BYTES + 12_345];
        new java.util.Random(7).nextBytes(data);
        java.nio.ByteBuffer body = java.nio.ByteBuffer.wrap(data, 100, data.length - 200).slice();
        await(storage.put("big", body));

        assertEquals(data.length - 200, body.remaining(), "the caller's buffer is left alone");
        assertArrayEquals(java.util.Arrays.copyOfRange(data, 100, data.length - 100),
                Files.readAllBytes(root().resolve("big")));
    }

    @Test
    void delete_lastObjectInDirectory_removesEmptyDirectories() throws Exception {
        await(storage.put("x/y/z", utf8("1")));
        await(storage.put("x/keep", utf8("2")));

        await(storage.delete(List.of("x/y/z")));

        assertFalse(Files.exists(root().resolve("x/y")));
        assertTrue(Files.exists(root().resolve("x/keep")));
        await(storage.put("x/y/z", utf8("again")));   // the pruned directory comes back
        assertEquals("again", string(await(storage.get("x/y/z"))));
    }

    @Test
    void put_keysThatAreNotRelativePaths_throwIllegalArgument() {
        for (String key : List.of("/abs", "a//b", "a/", "../escape", "a/./b", "a/../b", "back\\slash",
                FileObjectStorage.TMP_DIR + "/x")) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> storage.put(key, utf8("x")), key);
            assertTrue(e.getMessage().contains(key), e.getMessage());
        }
    }

    @Test
    void list_prefixWithDotDot_returnsNothingOutsideRoot() throws Exception {
        await(storage.put("inside", utf8("x")));

        assertEquals(List.of(), await(storage.list("../")));
        assertEquals(List.of(), await(storage.list("a/../")));
    }

    @Test
    void put_keyUnderAnExistingObject_failsWithStorageException() throws Exception {
        await(storage.put("file", utf8("x")));

        ObjectStorageException e = assertInstanceOf(ObjectStorageException.class,
                failure(storage.put("file/child", utf8("y"))));
        assertTrue(e.getMessage().contains("file/child"), e.getMessage());
        assertInstanceOf(ObjectNotFoundException.class, failure(storage.get("file/child")));
    }

    @Test
    void get_directoryKey_isNotFound() throws Exception {
        await(storage.put("dir/obj", utf8("x")));

        assertInstanceOf(ObjectNotFoundException.class, failure(storage.get("dir")));
        assertInstanceOf(ObjectNotFoundException.class, failure(storage.head("dir")));
        await(storage.delete(List.of("dir")));
        assertEquals(List.of("dir/obj"), keys(await(storage.list(""))));
    }

    @Test
    void open_oldTempFilesOfACrashedOpen_areRemoved_otherOpensKept_neverListed() throws Exception {
        Path dir = tempDir.resolve("reopened");
        try (ObjectStorage first = ObjectStorages.open(dir.toUri().toString())) {
            await(first.put("kept", utf8("x")));
            first.createMultipartUpload("abandoned").get();
        }
        // A crashed process's temp directory, older than the sweep's age, and a live one's, recent.
        Path crashed = Files.createDirectories(dir.resolve(FileObjectStorage.TMP_DIR).resolve("crashed"));
        Files.writeString(crashed.resolve("x.put"), "partial");
        java.nio.file.attribute.FileTime old = java.nio.file.attribute.FileTime.fromMillis(
                System.currentTimeMillis() - FileObjectStorage.ABANDONED_TEMP_MS - 60_000);
        Files.setLastModifiedTime(crashed.resolve("x.put"), old);
        Files.setLastModifiedTime(crashed, old);
        Path live = Files.createDirectories(dir.resolve(FileObjectStorage.TMP_DIR).resolve("live"));
        Files.writeString(live.resolve("y.put"), "in flight");

        try (ObjectStorage second = ObjectStorages.open(dir.toUri().toString())) {
            assertFalse(Files.exists(crashed), "a crashed open's old temp directory is removed");
            assertTrue(Files.exists(live.resolve("y.put")), "another live open's temp file is left alone");
            assertEquals(List.of("kept"), keys(await(second.list(""))));
        }
    }

    @Test
    void open_missingDirectory_isCreated() {
        Path dir = tempDir.resolve("does/not/exist/yet");

        try (ObjectStorage created = ObjectStorages.open(dir.toUri().toString())) {
            assertTrue(Files.isDirectory(dir));
            assertInstanceOf(FileObjectStorage.class, created);
        }
    }
}

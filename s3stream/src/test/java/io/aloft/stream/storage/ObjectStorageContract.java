package io.aloft.stream.storage;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.aloft.stream.storage.ObjectStorageStats.Operation;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The behaviour every {@link ObjectStorage} backend must share; each backend's test class
 * extends this and says how to open a fresh, empty storage. Not thread-safe (JUnit runs one
 * test at a time per instance).
 */
abstract class ObjectStorageContract {

    private static final int MIB = 1024 * 1024;

    protected ObjectStorage storage;

    /** Opens an empty storage with its own namespace; the test closes it. */
    protected abstract ObjectStorage open(ObjectStorageOptions options) throws Exception;

    @BeforeEach
    void openStorage() throws Exception {
        storage = open(ObjectStorageOptions.defaults());
    }

    @AfterEach
    void closeStorage() {
        if (storage != null) {
            storage.close();
        }
    }

    // ---- put / get ------------------------------------------------------------------------

    @Test
    void putBody_thenGet_returnsSameBytesAsOnePut() throws Exception {
        byte[] data = randomBytes(5 * MIB + 17, 31); // more than one 4 MiB flush step of the file backend
        long puts = storage.stats().requests(Operation.PUT);

        await(storage.put("streamed/one", new ChunkedPutBody(data, 300 * 1024 + 7)));

        assertArrayEquals(data, bytes(await(storage.get("streamed/one"))));
        assertEquals(puts + 1, storage.stats().requests(Operation.PUT));
        assertEquals(data.length, storage.stats().bytes(Operation.PUT));
    }

    @Test
    void putBody_empty_storesEmptyObject() throws Exception {
        await(storage.put("streamed/empty", new ChunkedPutBody(new byte[0], 1024)));

        assertEquals(0, await(storage.get("streamed/empty")).remaining());
    }

    @Test
    void putBody_fewerBytesThanDeclared_failsAndStoresNothing() throws Exception {
        byte[] data = randomBytes(100_000, 32);

        Throwable error = failure(storage.put("streamed/short", new ChunkedPutBody(data, 4096, data.length + 10)));

        assertTrue(error instanceof IllegalStateException || error instanceof ObjectStorageException, error.toString());
        assertInstanceOf(ObjectNotFoundException.class, failure(storage.get("streamed/short")));
    }

    @Test
    void putBody_moreBytesThanDeclared_failsAndStoresNothing() throws Exception {
        byte[] data = randomBytes(100_000, 33);

        Throwable error = failure(storage.put("streamed/long", new ChunkedPutBody(data, 4096, data.length - 10)));

        assertTrue(error instanceof IllegalStateException || error instanceof ObjectStorageException, error.toString());
        assertInstanceOf(ObjectNotFoundException.class, failure(storage.get("streamed/long")));
    }

    @Test
    void put_thenGet_returnsSameBytes() throws Exception {
        byte[] data = randomBytes(MIB + 17, 1);
        await(storage.put("objects/one", ByteBuffer.wrap(data)));

        ByteBuffer read = await(storage.get("objects/one"));
        assertEquals(0, read.position());
        assertArrayEquals(data, bytes(read));
        assertEquals(data.length, await(storage.head("objects/one")).size());
        assertEquals(data.length, await(storage.size("objects/one")));
    }

    @Test
    void put_emptyObject_readsBackEmpty() throws Exception {
        await(storage.put("empty", ByteBuffer.allocate(0)));

        assertEquals(0, await(storage.get("empty")).remaining());
        assertEquals(0, await(storage.head("empty")).size());
    }

    @Test
    void put_bufferWithPositionAndLimit_storesRemainingAndLeavesBufferAlone() throws Exception {
        ByteBuffer buffer = ByteBuffer.wrap("0123456789".getBytes(StandardCharsets.US_ASCII));
        buffer.position(3).limit(8);

        await(storage.put("slice", buffer));

        assertEquals(3, buffer.position());
        assertEquals(8, buffer.limit());
        assertEquals("34567", string(await(storage.get("slice"))));
    }

    @Test
    void put_directBuffer_storesBytes() throws Exception {
        byte[] data = randomBytes(64 * 1024, 2);
        ByteBuffer direct = ByteBuffer.allocateDirect(data.length).put(data).flip();

        await(storage.put("direct", direct));

        assertEquals(0, direct.position());
        assertArrayEquals(data, bytes(await(storage.get("direct"))));
    }

    @Test
    void put_existingKey_replacesObject() throws Exception {
        await(storage.put("k", utf8("first version")));
        await(storage.put("k", utf8("second")));

        assertEquals("second", string(await(storage.get("k"))));
    }

    @Test
    void putIfAbsent_newKeyWritten_existingKeyLeftAlone() throws Exception {
        assertTrue(await(storage.putIfAbsent("claim/0001", utf8("first"))));
        assertFalse(await(storage.putIfAbsent("claim/0001", utf8("second"))));
        assertEquals("first", string(await(storage.get("claim/0001"))));
        await(storage.put("claim/0002", utf8("plain put")));
        assertFalse(await(storage.putIfAbsent("claim/0002", utf8("conditional"))));
        assertEquals("plain put", string(await(storage.get("claim/0002"))));
    }

    @Test
    void putIfAbsent_racingWriters_exactlyOneWins() throws Exception {
        int writers = 8;
        List<java.util.concurrent.CompletableFuture<Boolean>> attempts = new java.util.ArrayList<>();
        for (int i = 0; i < writers; i++) {
            attempts.add(storage.putIfAbsent("race", utf8("writer " + i)));
        }
        int won = -1;
        for (int i = 0; i < writers; i++) {
            if (await(attempts.get(i))) {
                assertEquals(-1, won, "writers " + won + " and " + i + " both won");
                won = i;
            }
        }
        assertTrue(won >= 0, "one writer wins");
        assertEquals("writer " + won, string(await(storage.get("race"))));
    }

    @Test
    void put_unusualKeyCharacters_roundTripsAndLists() throws Exception {
        List<String> keys = List.of("odd/with space", "odd/plus+sign", "odd/ünïcødé-€", "odd/equals=and&amp",
                "odd/percent%20x", "odd/tilde~star*");
        for (String key : keys) {
            await(storage.put(key, utf8(key)));
        }
        for (String key : keys) {
            assertEquals(key, string(await(storage.get(key))));
        }
        List<String> sorted = new ArrayList<>(keys);
        Collections.sort(sorted);
        assertEquals(sorted, keys(await(storage.list("odd/"))));
    }

    // ---- ranged get -------------------------------------------------------------------------

    @Test
    void get_ranges_returnStartMiddleAndEnd() throws Exception {
        byte[] data = randomBytes(10_000, 3);
        await(storage.put("ranged", ByteBuffer.wrap(data)));

        assertArrayEquals(slice(data, 0, 100), bytes(await(storage.get("ranged", 0, 100))));
        assertArrayEquals(slice(data, 4_321, 5_678), bytes(await(storage.get("ranged", 4_321, 5_678))));
        assertArrayEquals(slice(data, 9_999, 10_000), bytes(await(storage.get("ranged", 9_999, 10_000))));
        assertArrayEquals(data, bytes(await(storage.get("ranged", 0, 10_000))));
    }

    @Test
    void get_rangePastEnd_isCutAtEnd() throws Exception {
        byte[] data = randomBytes(1_000, 4);
        await(storage.put("short", ByteBuffer.wrap(data)));

        assertArrayEquals(slice(data, 900, 1_000), bytes(await(storage.get("short", 900, 5_000))));
    }

    @Test
    void get_rangeStartingAtOrPastEnd_returnsEmpty() throws Exception {
        await(storage.put("short", ByteBuffer.wrap(randomBytes(1_000, 5))));

        assertEquals(0, await(storage.get("short", 1_000, 1_100)).remaining());
        assertEquals(0, await(storage.get("short", 5_000, 6_000)).remaining());
    }

    @Test
    void get_emptyRange_returnsEmptyWithoutRequest() throws Exception {
        long before = storage.stats().requests(Operation.GET);

        assertEquals(0, await(storage.get("never-written", 7, 7)).remaining());
        assertEquals(before, storage.stats().requests(Operation.GET));
    }

    @Test
    void get_invalidRange_throwsIllegalArgument() {
        assertThrows(IllegalArgumentException.class, () -> storage.get("k", -1, 10));
        assertThrows(IllegalArgumentException.class, () -> storage.get("k", 10, 9));
        assertThrows(IllegalArgumentException.class, () -> storage.get("k", 0, 1L << 40));
    }

    // ---- ranged get into parts -------------------------------------------------------------

    @Test
    void getParts_eachPartOwnsAnArrayOfExactlyItsBytes() throws Exception {
        byte[] data = randomBytes(10_000, 8);
        await(storage.put("parts", ByteBuffer.wrap(data)));
        long before = storage.stats().requests(Operation.GET);

        List<ByteBuffer> parts = await(storage.getParts("parts", 1_000, new int[] {3_000, 0, 2_500, 1}));

        assertEquals(before + 1, storage.stats().requests(Operation.GET), "one request for all parts");
        assertEquals(4, parts.size());
        int at = 1_000;
        for (ByteBuffer part : parts) {
            // Not a view of a bigger array: keeping one part must not keep the others alive.
            assertEquals(0, part.arrayOffset());
            assertEquals(part.remaining(), part.array().length);
            assertArrayEquals(slice(data, at, at + part.remaining()), bytes(part));
            at += part.remaining();
        }
        assertEquals(6_501, at);
    }

    @Test
    void getParts_pastEnd_cutsThePartHoldingTheEndAndEmptiesTheRest() throws Exception {
        byte[] data = randomBytes(1_000, 9);
        await(storage.put("short-parts", ByteBuffer.wrap(data)));

        List<ByteBuffer> parts = await(storage.getParts("short-parts", 500, new int[] {300, 300, 300}));

        assertArrayEquals(slice(data, 500, 800), bytes(parts.get(0)));
        assertArrayEquals(slice(data, 800, 1_000), bytes(parts.get(1)));
        assertEquals(0, parts.get(2).remaining());
    }

    @Test
    void getParts_missingKey_failsWithObjectNotFound() {
        assertInstanceOf(ObjectNotFoundException.class, failure(storage.getParts("missing/parts", 0, new int[] {10})));
    }

    // ---- missing keys ---------------------------------------------------------------------

    @Test
    void get_missingKey_failsWithObjectNotFound() {
        ObjectNotFoundException e = assertInstanceOf(ObjectNotFoundException.class, failure(storage.get("missing/key")));
        assertEquals("missing/key", e.key());
        assertEquals(Operation.GET, e.operation());
        assertTrue(e.getMessage().contains("missing/key"), e.getMessage());
        assertInstanceOf(ObjectNotFoundException.class, failure(storage.get("missing/key", 0, 10)));
    }

    @Test
    void head_missingKey_failsWithObjectNotFound() {
        ObjectNotFoundException e = assertInstanceOf(ObjectNotFoundException.class, failure(storage.head("missing")));
        assertEquals(Operation.HEAD, e.operation());
        assertEquals(1, storage.stats().failures(Operation.HEAD));
    }

    @Test
    void get_emptyKey_throwsIllegalArgument() {
        assertThrows(IllegalArgumentException.class, () -> storage.get(""));
        assertThrows(IllegalArgumentException.class, () -> storage.put("", utf8("x")));
    }

    // ---- multipart ------------------------------------------------------------------------

    @Test
    void multipart_threePartsUploadedOutOfOrder_completesToConcatenation() throws Exception {
        byte[] p1 = randomBytes(5 * MIB, 11);
        byte[] p2 = randomBytes(5 * MIB + 3, 12);
        byte[] p3 = randomBytes(1_000, 13);
        MultipartUpload upload = await(storage.createMultipartUpload("mp/object"));
        assertEquals("mp/object", upload.key());

        CompletableFuture<Void> third = upload.uploadPart(3, ByteBuffer.wrap(p3));
        CompletableFuture<Void> first = upload.uploadPart(1, ByteBuffer.wrap(p1));
        CompletableFuture<Void> second = upload.uploadPart(2, ByteBuffer.wrap(p2));
        await(CompletableFuture.allOf(first, second, third));
        assertInstanceOf(ObjectNotFoundException.class, failure(storage.head("mp/object")));
        await(upload.complete());

        byte[] expected = concat(p1, p2, p3);
        assertEquals(expected.length, await(storage.size("mp/object")));
        assertArrayEquals(expected, bytes(await(storage.get("mp/object"))));
        assertArrayEquals(slice(expected, 5 * MIB - 10, 5 * MIB + 10),
                bytes(await(storage.get("mp/object", 5 * MIB - 10, 5 * MIB + 10))));
        ObjectStorageStats stats = storage.stats();
        assertEquals(1, stats.requests(Operation.MULTIPART_CREATE));
        assertEquals(3, stats.requests(Operation.MULTIPART_PART));
        assertEquals(expected.length, stats.bytes(Operation.MULTIPART_PART));
        assertEquals(1, stats.requests(Operation.MULTIPART_COMPLETE));
        assertEquals(List.of("mp/object"), keys(await(storage.list("mp/"))));
    }

    @Test
    void multipart_partUploadedTwice_lastUploadWins() throws Exception {
        MultipartUpload upload = await(storage.createMultipartUpload("mp/replaced"));
        await(upload.uploadPart(1, utf8("old")));
        await(upload.uploadPart(1, utf8("new")));
        await(upload.complete());

        assertEquals("new", string(await(storage.get("mp/replaced"))));
    }

    @Test
    void multipart_aborted_leavesNoObjectAndRefusesComplete() throws Exception {
        MultipartUpload upload = await(storage.createMultipartUpload("mp/aborted"));
        await(upload.uploadPart(1, ByteBuffer.wrap(randomBytes(1_000, 14))));

        await(upload.abort());
        await(upload.abort());   // idempotent

        assertInstanceOf(ObjectNotFoundException.class, failure(storage.head("mp/aborted")));
        assertInstanceOf(IllegalStateException.class, failure(upload.complete()));
        assertInstanceOf(IllegalStateException.class, failure(upload.uploadPart(2, utf8("late"))));
        assertEquals(List.of(), await(storage.list("mp/")));
        assertEquals(1, storage.stats().requests(Operation.MULTIPART_ABORT));
    }

    @Test
    void multipart_smallPartBeforeLast_completeFailsAndUploadCanStillAbort() throws Exception {
        MultipartUpload upload = await(storage.createMultipartUpload("mp/small"));
        await(upload.uploadPart(1, utf8("too small to be a non-last part")));
        await(upload.uploadPart(2, utf8("last")));

        ObjectStorageException e = assertInstanceOf(ObjectStorageException.class, failure(upload.complete()));
        assertTrue(e.getMessage().contains("part 1"), e.getMessage());

        await(upload.abort());
        assertInstanceOf(ObjectNotFoundException.class, failure(storage.head("mp/small")));
    }

    @Test
    void multipart_completeWithoutParts_failsIllegalState() throws Exception {
        MultipartUpload upload = await(storage.createMultipartUpload("mp/none"));

        assertInstanceOf(IllegalStateException.class, failure(upload.complete()));
        await(upload.abort());
    }

    @Test
    void multipart_completed_refusesAbortAndNewParts() throws Exception {
        MultipartUpload upload = await(storage.createMultipartUpload("mp/done"));
        await(upload.uploadPart(1, utf8("only part")));
        await(upload.complete());

        assertInstanceOf(IllegalStateException.class, failure(upload.abort()));
        assertInstanceOf(IllegalStateException.class, failure(upload.complete()));
        assertThrows(IllegalArgumentException.class, () -> upload.uploadPart(0, utf8("x")));
        assertThrows(IllegalArgumentException.class, () -> upload.uploadPart(10_001, utf8("x")));
        assertEquals("only part", string(await(storage.get("mp/done"))));
    }

    // ---- list -----------------------------------------------------------------------------

    @Test
    void list_prefix_returnsOnlyMatchingKeysSortedWithSizes() throws Exception {
        // No key "a" beside "a/...": a file system (ours, and versitygw's posix backend) cannot hold both.
        for (String key : List.of("a/2", "a/1", "a/sub/3", "ab/4", "b/5", "a.txt")) {
            await(storage.put(key, utf8(key)));
        }

        assertEquals(List.of(new ObjectInfo("a/1", 3), new ObjectInfo("a/2", 3), new ObjectInfo("a/sub/3", 7)),
                await(storage.list("a/")));
        assertEquals(List.of("a/1", "a/2", "a/sub/3", "ab/4"), keys(await(storage.list("a"))).subList(1, 5));
        assertEquals(List.of("a/sub/3"), keys(await(storage.list("a/s"))));
        assertEquals(6, await(storage.list("")).size());
        assertEquals(List.of(), await(storage.list("zzz/")));
    }

    @Test
    void list_moreKeysThanOnePage_returnsAllAndCountsPages() throws Exception {
        // S3 pages hold at most 1,000 keys: 1,050 keys need two list requests and two deletes.
        List<String> keys = IntStream.range(0, 1_050).mapToObj(i -> String.format("many/%05d", i))
                .collect(Collectors.toList());
        putAll(storage, keys);
        long listsBefore = storage.stats().requests(Operation.LIST);

        assertEquals(keys, keys(await(storage.list("many/"))));
        assertEquals(2, storage.stats().requests(Operation.LIST) - listsBefore);

        await(storage.delete(keys));
        assertEquals(2, storage.stats().requests(Operation.DELETE));
        assertEquals(List.of(), await(storage.list("many/")));
    }

    @Test
    void list_smallPageSize_followsContinuation() throws Exception {
        try (ObjectStorage paged = open(ObjectStorageOptions.builder().listPageSize(7).build())) {
            List<String> keys = IntStream.range(0, 20).mapToObj(i -> "paged/" + (char) ('a' + i))
                    .collect(Collectors.toList());
            putAll(paged, keys);
            putAll(paged, List.of("other/x"));

            assertEquals(keys, keys(await(paged.list("paged/"))));
            assertEquals(3, paged.stats().requests(Operation.LIST));
        }
    }

    // ---- delete ---------------------------------------------------------------------------

    @Test
    void delete_existingAndMissingKeys_deletesExistingWithoutError() throws Exception {
        putAll(storage, List.of("d/1", "d/2", "d/3", "keep/1"));

        await(storage.delete(List.of("d/1", "d/missing", "d/3", "d/1", "never/there")));

        assertEquals(List.of("d/2", "keep/1"), keys(await(storage.list(""))));
        assertEquals(1, storage.stats().requests(Operation.DELETE));
        assertInstanceOf(ObjectNotFoundException.class, failure(storage.get("d/1")));
    }

    @Test
    void delete_noKeys_sendsNoRequest() throws Exception {
        await(storage.delete(List.of()));

        assertEquals(0, storage.stats().requests(Operation.DELETE));
    }

    // ---- stats, concurrency, lifecycle -----------------------------------------------------

    @Test
    void stats_operations_areCountedWithBytes() throws Exception {
        await(storage.put("s/1", ByteBuffer.wrap(randomBytes(1_000, 21))));
        await(storage.put("s/2", ByteBuffer.wrap(randomBytes(500, 22))));
        await(storage.get("s/1"));
        await(storage.get("s/1", 100, 300));
        await(storage.head("s/2"));
        await(storage.list("s/"));
        failure(storage.get("s/missing"));
        await(storage.delete(List.of("s/1")));

        ObjectStorageStats stats = storage.stats();
        assertEquals(2, stats.requests(Operation.PUT));
        assertEquals(1_500, stats.bytes(Operation.PUT));
        assertEquals(3, stats.requests(Operation.GET));
        assertEquals(1_200, stats.bytes(Operation.GET));
        assertEquals(1, stats.failures(Operation.GET));
        assertEquals(1, stats.requests(Operation.HEAD));
        assertEquals(1, stats.requests(Operation.LIST));
        assertEquals(1, stats.requests(Operation.DELETE));
        assertEquals(8, stats.totalRequests());
        assertEquals(0, stats.totalRetries());
        assertTrue(stats.toString().contains("PUT: requests=2 bytes=1500"), stats.toString());
    }

    @Test
    void put_concurrentFromManyThreads_allObjectsStored() throws Exception {
        int threads = 8;
        int perThread = 25;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<List<CompletableFuture<Void>>>> submitted = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int thread = t;
                submitted.add(pool.submit(() -> {
                    List<CompletableFuture<Void>> puts = new ArrayList<>();
                    for (int i = 0; i < perThread; i++) {
                        String key = "concurrent/" + thread + "/" + i;
                        puts.add(storage.put(key, ByteBuffer.wrap(payload(key, 4_096))));
                    }
                    return puts;
                }));
            }
            for (Future<List<CompletableFuture<Void>>> f : submitted) {
                await(CompletableFuture.allOf(f.get(30, TimeUnit.SECONDS).toArray(new CompletableFuture<?>[0])));
            }
        } finally {
            pool.shutdownNow();
        }

        List<ObjectInfo> listed = await(storage.list("concurrent/"));
        assertEquals(threads * perThread, listed.size());
        List<CompletableFuture<ByteBuffer>> reads = new ArrayList<>();
        for (ObjectInfo info : listed) {
            reads.add(storage.get(info.key()));
        }
        for (int i = 0; i < listed.size(); i++) {
            String key = listed.get(i).key();
            assertArrayEquals(payload(key, 4_096), bytes(await(reads.get(i))), key);
        }
        assertEquals(threads * perThread, storage.stats().requests(Operation.PUT));
    }

    @Test
    void close_thenOperations_failWithIllegalState() {
        storage.close();
        storage.close();   // idempotent

        assertInstanceOf(IllegalStateException.class, failure(storage.put("k", utf8("v"))));
        assertInstanceOf(IllegalStateException.class, failure(storage.get("k")));
        assertInstanceOf(IllegalStateException.class, failure(storage.list("")));
    }

    // ---- helpers --------------------------------------------------------------------------

    static <T> T await(CompletableFuture<T> future) throws Exception {
        try {
            return future.get(60, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof Exception cause) {
                throw cause;
            }
            throw e;
        }
    }

    /** The exception a future failed with, unwrapped; fails the test if it succeeds. */
    static Throwable failure(CompletableFuture<?> future) {
        try {
            Object value = future.get(60, TimeUnit.SECONDS);
            throw new AssertionError("expected a failure, got " + value);
        } catch (ExecutionException e) {
            return S3ObjectStorage.unwrap(e.getCause());
        } catch (InterruptedException | TimeoutException e) {
            throw new AssertionError("no outcome", e);
        }
    }

    static void putAll(ObjectStorage storage, List<String> keys) throws Exception {
        // Bounded concurrency: enough to be quick, few enough to be kind to a 2-core machine.
        int window = 32;
        for (int from = 0; from < keys.size(); from += window) {
            List<CompletableFuture<Void>> puts = new ArrayList<>();
            for (String key : keys.subList(from, Math.min(keys.size(), from + window))) {
                puts.add(storage.put(key, utf8(key)));
            }
            await(CompletableFuture.allOf(puts.toArray(new CompletableFuture<?>[0])));
        }
    }

    static List<String> keys(List<ObjectInfo> infos) {
        return infos.stream().map(ObjectInfo::key).collect(Collectors.toList());
    }

    static ByteBuffer utf8(String s) {
        return ByteBuffer.wrap(s.getBytes(StandardCharsets.UTF_8));
    }

    static String string(ByteBuffer b) {
        return new String(bytes(b), StandardCharsets.UTF_8);
    }

    static byte[] bytes(ByteBuffer b) {
        ByteBuffer view = b.duplicate();
        byte[] out = new byte[view.remaining()];
        view.get(out);
        return out;
    }

    static byte[] randomBytes(int n, long seed) {
        byte[] b = new byte[n];
        new Random(seed).nextBytes(b);
        return b;
    }

    private static byte[] payload(String key, int n) {
        return randomBytes(n, key.hashCode());
    }

    private static byte[] slice(byte[] data, int from, int to) {
        byte[] out = new byte[to - from];
        System.arraycopy(data, from, out, 0, out.length);
        return out;
    }

    private static byte[] concat(byte[]... parts) {
        int n = 0;
        for (byte[] p : parts) {
            n += p.length;
        }
        ByteBuffer out = ByteBuffer.allocate(n);
        for (byte[] p : parts) {
            out.put(p);
        }
        return out.array();
    }
}

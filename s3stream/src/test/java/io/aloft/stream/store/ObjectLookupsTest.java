package io.aloft.stream.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.aloft.stream.metadata.ObjectRef;
import io.aloft.stream.metadata.S3Object;
import io.aloft.stream.metadata.StreamMetadata;
import io.aloft.stream.metadata.StreamRange;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** Object lookups kept per stream: reused only for covered offsets, within half the delete delay. */
class ObjectLookupsTest {
    private static ObjectRef ref(long id, long start, long end) {
        return new ObjectRef(id, S3Object.Type.STREAM_SET, 1 << 20, new StreamRange(7, 1, start, end));
    }

    private final List<ObjectRef> stored = List.of(ref(1, 0, 100), ref(2, 100, 250), ref(3, 250, 400));
    private final AtomicInteger asked = new AtomicInteger();
    private final AtomicLong clock = new AtomicLong(1_000);

    /** A metadata whose getObjects answers from {@link #stored} and counts the asks; nothing else is called. */
    private StreamMetadata metadata() {
        return (StreamMetadata) Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[] {StreamMetadata.class}, (proxy, method, args) -> {
                    if (!method.getName().equals("getObjects")) {
                        throw new UnsupportedOperationException(method.getName());
                    }
                    asked.incrementAndGet();
                    long from = (long) args[1];
                    long to = (long) args[2];
                    int limit = (int) args[3];
                    List<ObjectRef> out = new ArrayList<>();
                    for (ObjectRef r : (long) args[0] == 7 ? stored : List.<ObjectRef>of()) {
                        if (r.range().endOffset() > from && (to < 0 || r.range().startOffset() < to) && out.size() < limit) {
                            out.add(r);
                        }
                    }
                    return CompletableFuture.completedFuture(out);
                });
    }

    @Test
    void aCoveredOffset_isAnsweredFromTheKeptAnswer_untilItAges() throws Exception {
        ObjectLookups lookups = new ObjectLookups(metadata(), clock::get, 60_000);
        assertEquals(stored, lookups.getObjects(7, 0, -1, 8).get());
        assertEquals(1, asked.get());
        assertEquals(stored.subList(1, 3), lookups.getObjects(7, 120, -1, 8).get(), "covered: kept");
        assertEquals(stored.subList(1, 2), lookups.getObjects(7, 120, 200, 8).get(), "cut at the end asked for");
        assertEquals(stored.subList(0, 2), lookups.getObjects(7, 50, -1, 2).get(), "and at the limit");
        assertEquals(1, asked.get());
        assertEquals(List.of(), lookups.getObjects(7, 400, -1, 8).get(), "past the kept objects: asks");
        assertEquals(2, asked.get());
        assertEquals(List.of(), lookups.getObjects(8, 0, -1, 8).get(), "another stream: asks");
        assertEquals(3, asked.get());

        clock.addAndGet(ObjectLookups.MAX_TTL_MS);
        lookups.getObjects(7, 120, -1, 8).get();
        assertEquals(4, asked.get(), "aged: asks again");
        lookups.forget(7);
        lookups.getObjects(7, 120, -1, 8).get();
        assertEquals(5, asked.get(), "forgotten after a failed read: asks again");
    }

    @Test
    void answersAreKeptForAtMostHalfTheDeleteDelay_soEveryObjectTheyNameStillExists() throws Exception {
        ObjectLookups lookups = new ObjectLookups(metadata(), clock::get, 1_000);
        lookups.getObjects(7, 0, -1, 8).get();
        clock.addAndGet(499);
        lookups.getObjects(7, 10, -1, 8).get();
        assertEquals(1, asked.get());
        clock.addAndGet(1);
        lookups.getObjects(7, 10, -1, 8).get();
        assertEquals(2, asked.get(), "500 ms = half of the 1 s delete delay: asks");

        ObjectLookups none = new ObjectLookups(metadata(), clock::get, 0);
        none.getObjects(7, 0, -1, 8).get();
        none.getObjects(7, 0, -1, 8).get();
        assertEquals(4, asked.get(), "no delete delay: nothing kept");
    }

    @Test
    void anAnswerAskedBeforeAForget_isNotKept() throws Exception {
        CompletableFuture<Void> release = new CompletableFuture<>();
        StreamMetadata slow = (StreamMetadata) Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[] {StreamMetadata.class}, (proxy, method, args) -> {
                    asked.incrementAndGet();
                    return release.thenApply(v -> stored);
                });
        ObjectLookups lookups = new ObjectLookups(slow, clock::get, 60_000);
        CompletableFuture<List<ObjectRef>> before = lookups.getObjects(7, 0, -1, 8);
        lookups.forget(7); // a range rewrite committed while that ask was in flight
        release.complete(null);
        assertEquals(stored, before.get());
        lookups.getObjects(7, 10, -1, 8).get();
        assertEquals(2, asked.get(), "the answer may predate the rewrite: not kept");
    }

    @Test
    void covering_stopsAtAGapOrAnOverlap_andNeedsAnObjectHoldingTheOffset() {
        List<ObjectRef> gap = List.of(ref(1, 0, 100), ref(2, 150, 200));
        assertEquals(gap.subList(0, 1), ObjectLookups.covering(gap, 10, -1, 8));
        assertNull(ObjectLookups.covering(gap, 120, -1, 8), "in the gap");
        assertNull(ObjectLookups.covering(List.of(ref(2, 150, 200)), 100, -1, 8), "below the first");
        List<ObjectRef> overlap = List.of(ref(1, 0, 100), ref(2, 90, 200));
        assertEquals(overlap.subList(0, 1), ObjectLookups.covering(overlap, 0, -1, 8));
    }
}

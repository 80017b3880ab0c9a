package io.aloft.broker.coordinator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.aloft.broker.coordinator.KvShard.Put;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.apache.kafka.common.errors.CoordinatorLoadInProgressException;
import org.apache.kafka.common.errors.NotCoordinatorException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The runtime on real shard threads, with a test coordinator ({@link KvShard}). */
class CoordinatorRuntimeTest {

    private final ManualTimer timer = new ManualTimer();
    private final HeldLog<Put> log = new HeldLog<>(KvShard.SERDE);
    private final Map<Integer, KvShard> shards = new ConcurrentHashMap<>();
    private final List<CoordinatorRuntime<KvShard, Put>> runtimes = new ArrayList<>();
    private CoordinatorThreads threads;
    private CoordinatorRuntime<KvShard, Put> runtime;

    @BeforeEach
    void start() {
        AtomicInteger n = new AtomicInteger();
        threads = CoordinatorThreads.fixed(2, r -> {
            Thread t = new Thread(r, "test-shard-" + n.getAndIncrement());
            t.setDaemon(true);
            return t;
        });
        runtime = newRuntime(log);
    }

    private CoordinatorRuntime<KvShard, Put> newRuntime(CoordinatorLog<Put> on) {
        CoordinatorRuntime<KvShard, Put> r = new CoordinatorRuntime<>("kv", on, timer, threads, ctx -> {
            KvShard s = new KvShard(ctx);
            shards.put(ctx.partition(), s);
            return s;
        });
        runtimes.add(r);
        return r;
    }

    @AfterEach
    void stop() {
        runtimes.forEach(CoordinatorRuntime::close);
        threads.close();
    }

    private static <T> T await(CompletableFuture<T> f) throws Exception {
        return f.get(10, TimeUnit.SECONDS);
    }

    private static Throwable failure(CompletableFuture<?> f) {
        ExecutionException e = assertThrows(ExecutionException.class, () -> f.get(10, TimeUnit.SECONDS));
        return e.getCause();
    }

    private String get(int partition, String key) throws Exception {
        return await(runtime.read("get", partition, s -> s.get(key)));
    }

    /** Polls {@code condition} until it holds or 10 s pass. */
    private static void eventually(Supplier<Boolean> condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!condition.get()) {
            assertTrue(System.nanoTime() < deadline, "timed out waiting for " + what);
            Thread.onSpinWait();
        }
    }

    @Test
    void write_partitionNotLoaded_failsWithNotCoordinator() {
        assertInstanceOf(NotCoordinatorException.class, failure(runtime.write("put", 0, s -> s.put("a", "1"))));
        assertInstanceOf(NotCoordinatorException.class, failure(runtime.read("get", 0, s -> s.get("a"))));
        assertEquals(CoordinatorRuntime.Status.NOT_SERVED, runtime.status(0));
    }

    @Test
    void write_whileLoading_failsWithLoadInProgressThenServesOnceLoaded() throws Exception {
        CountDownLatch replaying = new CountDownLatch(1);
        CountDownLatch finish = new CountDownLatch(1);
        log.inner.append(0, List.of(new Put("a", "1"))).join();
        CoordinatorLog<Put> slow = new CoordinatorLog<>() {
            @Override
            public CompletableFuture<Void> append(int partition, List<Put> records) {
                return log.append(partition, records);
            }

            @Override
            public void replay(int partition, Consumer<Put> sink) {
                replaying.countDown();
                try {
                    finish.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                log.replay(partition, sink);
            }
        };
        runtime = newRuntime(slow);
        CompletableFuture<Void> loaded = CompletableFuture.runAsync(() -> runtime.load(0));
        assertTrue(replaying.await(10, TimeUnit.SECONDS));
        assertEquals(CoordinatorRuntime.Status.LOADING, runtime.status(0));
        assertTrue(runtime.anyLoading());
        assertInstanceOf(CoordinatorLoadInProgressException.class, failure(runtime.write("put", 0, s -> s.put("b", "2"))));
        finish.countDown();
        await(loaded);
        assertEquals(CoordinatorRuntime.Status.ACTIVE, runtime.status(0));
        assertEquals("1", get(0, "a"));
    }

    @Test
    void write_replaysAtOnce_respondsOnlyOnceDurable() throws Exception {
        runtime.load(0);
        log.hold();
        CompletableFuture<String> put = runtime.write("put", 0, s -> s.put("a", "1"));
        // A read queued behind the write runs while the append is in flight: it sees the write
        // (replayed when the operation returned), whose caller has not heard back yet.
        assertEquals("1", get(0, "a"));
        assertTrue(shards.get(0).events.contains("replay a"));
        assertFalse(put.isDone());
        assertEquals(1, log.pending());

        log.release();
        assertNull(await(put), "the response (the old value) comes once the record is durable");
        assertEquals("1", get(0, "a"));
    }

    @Test
    void write_appendFails_futureFailsAndTheShardReloadsToWhatTheLogHolds() throws Exception {
        runtime.load(0);
        await(runtime.write("put", 0, s -> s.put("kept", "1")));
        log.hold();
        CompletableFuture<String> put = runtime.write("put", 0, s -> s.put("a", "1"));
        eventually(() -> log.pending() == 1, "the append");
        log.fail(new IllegalStateException("disk gone"));
        assertEquals("disk gone", failure(put).getMessage());
        // The state had run ahead of the log: the shard is dropped, to be loaded again from the log.
        eventually(() -> runtime.status(0) == CoordinatorRuntime.Status.NOT_SERVED, "the unload");
        assertTrue(shards.get(0).unloaded);
        assertInstanceOf(NotCoordinatorException.class, failure(runtime.read("get", 0, s -> s.get("a"))));
        runtime.load(0);
        assertNull(get(0, "a"));
        assertEquals("1", get(0, "kept"));
        assertEquals(1, log.inner.size(0));
    }

    @Test
    void operations_ofOneShard_runOneAtATimeOnOneThreadInSubmissionOrder() throws Exception {
        for (int p = 0; p < 4; p++) {
            runtime.load(p);
        }
        int clients = 4;
        int perClient = 300;
        List<CompletableFuture<Void>> done = new ArrayList<>();
        for (int c = 0; c < clients; c++) {
            int client = c;
            done.add(CompletableFuture.runAsync(() -> {
                List<CompletableFuture<String>> writes = new ArrayList<>();
                for (int i = 0; i < perClient; i++) {
                    // Every client writes its own key on every partition, values increasing.
                    writes.add(runtime.write("put", i % 4, s -> s.put("client-" + client, Integer.toString(0))));
                    int value = i;
                    writes.add(runtime.write("put", i % 4, s -> s.put("seq-" + client, Integer.toString(value))));
                }
                writes.forEach(CompletableFuture::join);
            }));
        }
        for (CompletableFuture<Void> f : done) {
            await(f);
        }
        for (int p = 0; p < 4; p++) {
            KvShard s = shards.get(p);
            int partition = p;
            assertFalse(s.overlapped, "two calls ran at once on partition " + p);
            String onlyThread = await(runtime.read("threads", p, shard -> String.join(",", shard.threads)));
            assertEquals(1, onlyThread.split(",").length, "partition " + p + " ran on " + onlyThread);
            assertTrue(onlyThread.startsWith("test-shard-"), onlyThread);
            for (int c = 0; c < clients; c++) {
                // The last write of each client to this partition wins: submission order was kept.
                int last = perClient - 4 + partition;
                assertEquals(Integer.toString(last), get(p, "seq-" + c), "client " + c + " partition " + p);
            }
        }
        // Partitions p and p + 2 share a thread (2 threads), and still never overlapped.
        String thread0 = await(runtime.read("t", 0, s -> s.threads.get(0)));
        String thread2 = await(runtime.read("t", 2, s -> s.threads.get(0)));
        assertEquals(thread0, thread2);
    }

    @Test
    void write_operationThrows_failsItsFutureAndTheShardKeepsServing() throws Exception {
        runtime.load(0);
        CompletableFuture<String> bad = runtime.write("bad", 0, s -> {
            throw new IllegalArgumentException("bug");
        });
        assertEquals("bug", failure(bad).getMessage());
        await(runtime.write("put", 0, s -> s.put("a", "1")));
        assertEquals("1", get(0, "a"));
    }

    @Test
    void load_replaysThePartitionThenStartsOnTheShardThread() throws Exception {
        log.inner.append(3, List.of(new Put("x", "1"), new Put("y", "2"), new Put("x", null))).join();
        log.inner.append(1, List.of(new Put("other", "partition"))).join();
        runtime.load(3);
        KvShard s = shards.get(3);
        assertEquals(List.of("replay x", "replay y", "replay x", "loaded"),
                await(runtime.read("events", 3, shard -> List.copyOf(shard.events))));
        assertEquals(Map.of("y", "2"), await(runtime.read("state", 3, shard -> Map.copyOf(shard.state))));
        assertTrue(s.threads.get(0).startsWith("test-shard-"), "onLoaded ran on " + s.threads);
        runtime.load(3); // loading a served partition again does nothing
        long loads = await(runtime.read("events", 3, shard -> shard.events.stream().filter("loaded"::equals).count()));
        assertEquals(1L, loads);
    }

    @Test
    void unload_shardMovesWithItsPartition_theNextOwnerReplaysTheSameState() throws Exception {
        runtime.load(0);
        await(runtime.write("put", 0, s -> s.put("a", "1")));
        await(runtime.write("put", 0, s -> s.put("b", "2")));
        KvShard first = shards.get(0);

        runtime.unload(0);
        assertTrue(first.unloaded);
        assertEquals(CoordinatorRuntime.Status.NOT_SERVED, runtime.status(0));
        assertInstanceOf(NotCoordinatorException.class, failure(runtime.write("put", 0, s -> s.put("c", "3"))));

        CoordinatorRuntime<KvShard, Put> other = newRuntime(log); // the partition's new owner
        other.load(0);
        assertEquals(Map.of("a", "1", "b", "2"), await(other.read("state", 0, s -> Map.copyOf(s.state))));
    }

    @Test
    void timers_runOnTheShardThreadAsWrites_andUnloadCancelsThem() throws Exception {
        runtime.load(0);
        await(runtime.write("arm", 0, s -> {
            s.ctx.schedule(100, "fire", () -> CoordinatorResult.of(List.of(new Put("timer", "fired")), null));
            s.ctx.schedule(500, "late", () -> CoordinatorResult.of(List.of(new Put("late", "fired")), null));
            return CoordinatorResult.of(null);
        }));
        timer.advance(99);
        assertNull(get(0, "timer"));
        timer.advance(1);
        eventually(() -> "fired".equals(runtime.read("get", 0, s -> s.get("timer")).join()), "the timer's write");
        assertEquals(1, log.inner.size(0));

        runtime.unload(0);
        timer.advance(1_000);
        runtime.load(0);
        assertNull(get(0, "late"), "a timer of an unloaded shard must not run");
        assertEquals(1, log.inner.size(0));
    }

    @Test
    void append_completingAfterUnload_answersTheCallerAndTheNextOwnerHasIt() throws Exception {
        runtime.load(0);
        log.hold();
        CompletableFuture<String> put = runtime.write("put", 0, s -> s.put("a", "1"));
        eventually(() -> log.pending() == 1, "the append");
        runtime.unload(0);
        log.release();
        assertNull(await(put), "the record is durable, so the caller hears success");
        runtime.load(0);
        assertEquals("1", get(0, "a"));
    }

    @Test
    void afterAppend_stepsSeeTheOutcomeOnTheShardThread_andMayWriteMore() throws Exception {
        runtime.load(0);
        List<String> seen = new ArrayList<>();
        CompletableFuture<String> write = runtime.write("builder", 0, s -> {
            CoordinatorResult.Builder<Put> out = CoordinatorResult.builder();
            s.state.put("direct", "applied by the operation");
            out.append(List.of(new Put("direct", "applied by the operation")), (failure, next) -> {
                seen.add((failure == null ? "durable" : "failed") + " on " + Thread.currentThread().getName());
                next.append(List.of(new Put("follow-up", "written after")), null);
            });
            return out.build("done");
        });
        assertEquals("done", await(write));
        assertEquals(1, seen.size());
        assertTrue(seen.get(0).startsWith("durable on test-shard-"), seen.get(0));
        eventually(() -> log.inner.size(0) == 2, "the follow-up record");
        // Builder records are the operation's own changes: not replayed when written.
        assertNull(get(0, "follow-up"));
        assertEquals(List.of("loaded"), await(runtime.read("events", 0, s -> List.copyOf(s.events))));
        // ...but they are what a reload sees.
        runtime.unload(0);
        runtime.load(0);
        assertEquals("written after", get(0, "follow-up"));
    }

    @Test
    void readAll_visitsEveryServedShard() throws Exception {
        runtime.load(0);
        runtime.load(5);
        await(runtime.write("put", 5, s -> s.put("k", "v")));
        List<Integer> sizes = new ArrayList<>();
        for (CompletableFuture<Integer> f : runtime.readAll("size", s -> s.state.size())) {
            sizes.add(await(f));
        }
        assertEquals(List.of(0, 1), sizes);
    }
}

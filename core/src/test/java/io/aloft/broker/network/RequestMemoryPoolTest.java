package io.aloft.broker.network;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class RequestMemoryPoolTest {
    /** A waiter that records its grants. */
    private static final class Grants implements RequestMemoryPool.Waiter {
        final AtomicInteger count = new AtomicInteger();

        @Override
        public void granted() {
            count.incrementAndGet();
        }
    }

    @Test
    void reserve_fits_isGrantedAtOnce() {
        RequestMemoryPool pool = new RequestMemoryPool(100);
        assertTrue(pool.reserve(60, new Grants()));
        assertTrue(pool.reserve(40, new Grants()));
        assertEquals(100, pool.used());
        assertEquals(0, pool.waiting());
    }

    @Test
    void reserve_doesNotFit_waitsUntilReleaseMakesRoom() {
        RequestMemoryPool pool = new RequestMemoryPool(100);
        assertTrue(pool.reserve(70, new Grants()));
        Grants w = new Grants();
        assertFalse(pool.reserve(50, w));
        assertEquals(1, pool.waiting());
        pool.release(10); // 60 used: 50 still does not fit
        assertEquals(0, w.count.get());
        pool.release(20); // 40 used: fits
        assertEquals(1, w.count.get());
        assertEquals(90, pool.used(), "a grant takes the bytes for the waiter");
        assertEquals(0, pool.waiting());
    }

    @Test
    void reserve_largerThanThePool_isGrantedAloneWhenEmpty() {
        RequestMemoryPool pool = new RequestMemoryPool(100);
        assertTrue(pool.reserve(250, new Grants()), "an empty pool admits one oversized frame");
        assertEquals(250, pool.used());
        assertFalse(pool.reserve(1, new Grants()), "nothing else while it is held");
        pool.release(250);
        assertEquals(1, pool.used());

        Grants big = new Grants();
        assertFalse(pool.reserve(250, big), "oversized waits for the pool to be empty");
        pool.release(1);
        assertEquals(1, big.count.get());
        assertEquals(250, pool.peak());
    }

    @Test
    void waiters_areGrantedInArrivalOrder_noOvertakingOfALargeOne() {
        RequestMemoryPool pool = new RequestMemoryPool(100);
        assertTrue(pool.reserve(90, new Grants()));
        Grants large = new Grants();
        Grants small = new Grants();
        assertFalse(pool.reserve(80, large));
        assertFalse(pool.reserve(5, small), "a small one that would fit queues behind the large one");
        pool.release(90);
        assertEquals(1, large.count.get());
        assertEquals(1, small.count.get(), "both fit once the first is released");
        assertEquals(85, pool.used());
    }

    @Test
    void cancel_queued_removesItAndLetsTheNextOneIn() {
        RequestMemoryPool pool = new RequestMemoryPool(100);
        assertTrue(pool.reserve(50, new Grants()));
        Grants head = new Grants();
        Grants next = new Grants();
        assertFalse(pool.reserve(80, head));
        assertFalse(pool.reserve(30, next));
        assertTrue(pool.cancel(head));
        assertEquals(0, head.count.get());
        assertEquals(1, next.count.get(), "the head held it back; without it, it fits");
        assertEquals(80, pool.used());
        assertFalse(pool.cancel(head), "no longer queued");
    }

    @Test
    void unlimited_neverWaits() {
        RequestMemoryPool pool = new RequestMemoryPool(-1);
        assertTrue(pool.reserve(Integer.MAX_VALUE, new Grants()));
        assertTrue(pool.reserve(Integer.MAX_VALUE, new Grants()));
        assertEquals(Long.MAX_VALUE, pool.capacity());
    }

    @Test
    void release_moreThanReserved_isRefused() {
        RequestMemoryPool pool = new RequestMemoryPool(100);
        assertTrue(pool.reserve(10, new Grants()));
        assertThrows(IllegalStateException.class, () -> pool.release(11));
        assertThrows(IllegalArgumentException.class, () -> new RequestMemoryPool(0));
    }

    @Test
    void concurrentReserveAndRelease_neverExceedCapacity_andEndEmpty() throws Exception {
        RequestMemoryPool pool = new RequestMemoryPool(1000);
        ExecutorService threads = Executors.newFixedThreadPool(4);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                int seed = t;
                done.add(threads.submit(() -> {
                    java.util.Random random = new java.util.Random(seed);
                    for (int i = 0; i < 20_000; i++) {
                        int bytes = 1 + random.nextInt(300);
                        java.util.concurrent.CountDownLatch granted = new java.util.concurrent.CountDownLatch(1);
                        if (!pool.reserve(bytes, granted::countDown)) {
                            assertTrue(granted.await(10, TimeUnit.SECONDS), "a waiter is granted eventually");
                        }
                        pool.release(bytes);
                    }
                    return null;
                }));
            }
            for (Future<?> f : done) {
                f.get(60, TimeUnit.SECONDS);
            }
        } finally {
            threads.shutdownNow();
        }
        assertEquals(0, pool.used());
        assertTrue(pool.peak() <= 1000, "peak " + pool.peak());
    }
}

package io.aloft.broker.lifecycle;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * What a plain ScheduledThreadPoolExecutor hides in futures, this one reports: a periodic task
 * that throws (which also cancels its later runs) and a one-shot task that throws.
 */
class CriticalSchedulerTest {
    private final List<String> reported = new CopyOnWriteArrayList<>();
    private final CompletableFuture<Void> firstReport = new CompletableFuture<>();
    private final CriticalScheduler scheduler = new CriticalScheduler("test-scheduler", 1, (thread, error) -> {
        reported.add(thread.getName() + ": " + error.getMessage());
        firstReport.complete(null);
    });

    @AfterEach
    void tearDown() {
        scheduler.shutdownNow();
    }

    @Test
    void periodicTaskThrows_isReportedOnItsThread() throws Exception {
        AtomicInteger runs = new AtomicInteger();
        scheduler.scheduleWithFixedDelay(() -> {
            if (runs.incrementAndGet() == 3) {
                throw new IllegalStateException("third run failed");
            }
        }, 0, 1, TimeUnit.MILLISECONDS);
        firstReport.get(10, TimeUnit.SECONDS);
        assertEquals(List.of("test-scheduler-1: third run failed"), reported);
    }

    @Test
    void oneShotTaskThrows_isReported() throws Exception {
        scheduler.execute(() -> {
            throw new IllegalArgumentException("one-shot failed");
        });
        firstReport.get(10, TimeUnit.SECONDS);
        assertEquals(List.of("test-scheduler-1: one-shot failed"), reported);
    }

    @Test
    void tasksThatSucceedOrAreCancelled_areNotReported() throws Exception {
        CountDownLatch ran = new CountDownLatch(5);
        ScheduledFuture<?> periodic = scheduler.scheduleWithFixedDelay(ran::countDown, 0, 1, TimeUnit.MILLISECONDS);
        assertTrue(ran.await(10, TimeUnit.SECONDS));
        periodic.cancel(false);
        scheduler.schedule(() -> { }, 0, TimeUnit.MILLISECONDS).get(10, TimeUnit.SECONDS);
        // A task after the others, on the same single thread: everything before it has been judged.
        scheduler.submit(() -> { }).get(10, TimeUnit.SECONDS);
        assertEquals(List.of(), reported);
    }

    @Test
    void taskThrowingAfterShutdown_isNotReported() throws Exception {
        CountDownLatch running = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        scheduler.execute(() -> {
            running.countDown();
            try {
                release.await();
            } catch (InterruptedException e) {
                throw new IllegalStateException("interrupted by the shutdown", e);
            }
        });
        assertTrue(running.await(10, TimeUnit.SECONDS));
        scheduler.shutdownNow();
        assertTrue(scheduler.awaitTermination(10, TimeUnit.SECONDS));
        assertEquals(List.of(), reported, "a shutdown's interruptions are not failures");
    }
}

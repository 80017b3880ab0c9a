package io.aloft.broker.lifecycle;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The failure handler on its own: what it closes, in which order, how often, and how it exits. */
class FatalFailureHandlerTest {

    /** Records every exit instead of ending the test JVM. */
    private static final class RecordingExit implements ProcessExit {
        final List<Integer> statuses = new CopyOnWriteArrayList<>();
        final List<String> threads = new CopyOnWriteArrayList<>();

        @Override
        public void exit(int status) {
            statuses.add(status);
            threads.add(Thread.currentThread().getName());
        }
    }

    private final RecordingExit exit = new RecordingExit();
    private final List<String> steps = new CopyOnWriteArrayList<>();

    private AutoCloseable step(String name) {
        return () -> steps.add(name);
    }

    private FatalFailureHandler handler(long stopTimeoutMs) {
        FatalFailureHandler h = new FatalFailureHandler(5, exit, stopTimeoutMs);
        h.closeOnFailure("first registered", step("first registered"));
        h.closeListenersWith(step("listeners"));
        h.stopHeartbeatsWith(step("heartbeats"));
        h.closeOnFailure("last registered", step("last registered"));
        return h;
    }

    @Test
    void fail_stopsHeartbeatsThenClosesListenersThenTheRestNewestFirst_thenExitsWithStatus3() throws Exception {
        FatalFailureHandler h = handler(5_000);
        assertFalse(h.failed());
        h.fail("WAL /dev/sdb", new java.io.IOException("Input/output error"));
        assertTrue(h.failed());
        assertTrue(h.awaitStopped(10, TimeUnit.SECONDS));
        assertEquals(List.of("heartbeats", "listeners", "last registered", "first registered"), steps);
        assertEquals(List.of(3), exit.statuses);
        assertEquals(3, FatalFailureHandler.EXIT_STATUS);
        assertEquals(List.of("broker-5-fatal-stop"), exit.threads, "exits from its own thread, not the failing one");
    }

    @Test
    void fail_again_whileStopping_stopsAndExitsOnce() throws Exception {
        FatalFailureHandler h = new FatalFailureHandler(5, exit, 5_000);
        CountDownLatch secondReported = new CountDownLatch(1);
        // A second failure arriving during the stop (as closing a failed component often causes).
        h.stopHeartbeatsWith(() -> {
            steps.add("heartbeats");
            h.fail("stream store", new IllegalStateException("second"));
            secondReported.countDown();
        });
        h.closeListenersWith(step("listeners"));
        h.fail("WAL", new java.io.IOException("first"));
        assertTrue(h.awaitStopped(10, TimeUnit.SECONDS));
        assertTrue(secondReported.await(1, TimeUnit.SECONDS));
        h.fail("thread x", new Error("third, after the stop"));
        assertEquals(List.of("heartbeats", "listeners"), steps, "each step ran once");
        assertEquals(List.of(3), exit.statuses, "exited once");
    }

    @Test
    void fail_concurrentFailures_stopOnce() throws Exception {
        FatalFailureHandler h = handler(5_000);
        List<Thread> threads = new java.util.ArrayList<>();
        CountDownLatch go = new CountDownLatch(1);
        for (int i = 0; i < 8; i++) {
            int n = i;
            Thread t = new Thread(() -> {
                try {
                    go.await();
                } catch (InterruptedException e) {
                    return;
                }
                h.fail("component " + n, new RuntimeException("failure " + n));
            });
            t.start();
            threads.add(t);
        }
        go.countDown();
        for (Thread t : threads) {
            t.join(10_000);
        }
        assertTrue(h.awaitStopped(10, TimeUnit.SECONDS));
        assertEquals(List.of("heartbeats", "listeners", "last registered", "first registered"), steps);
        assertEquals(List.of(3), exit.statuses);
    }

    @Test
    void fail_stepThrows_laterStepsStillRun() throws Exception {
        FatalFailureHandler h = new FatalFailureHandler(5, exit, 5_000);
        h.stopHeartbeatsWith(() -> {
            throw new IllegalStateException("controller client already closed");
        });
        h.closeListenersWith(step("listeners"));
        h.closeOnFailure("store", step("store"));
        h.fail("WAL", new java.io.IOException("EIO"));
        assertTrue(h.awaitStopped(10, TimeUnit.SECONDS));
        assertEquals(List.of("listeners", "store"), steps);
        assertEquals(List.of(3), exit.statuses);
    }

    @Test
    void fail_stepHangs_exitComesAfterTheStopTimeout() throws Exception {
        FatalFailureHandler h = new FatalFailureHandler(5, exit, 200);
        CountDownLatch never = new CountDownLatch(1);
        h.stopHeartbeatsWith(step("heartbeats"));
        h.closeListenersWith(never::await); // a listener that never closes
        h.closeOnFailure("store", step("store"));
        long start = System.nanoTime();
        h.fail("WAL", new java.io.IOException("EIO"));
        assertTrue(h.awaitStopped(10, TimeUnit.SECONDS));
        long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertEquals(List.of(3), exit.statuses);
        assertEquals(List.of("heartbeats"), steps, "the step after the hanging one never ran");
        assertTrue(tookMs >= 200, "waited for the closing steps for the stop timeout: " + tookMs + " ms");
        never.countDown();
    }

    @Test
    void failureDuringStartup_stepsRegisteredLaterAreRunAtOnce() throws Exception {
        FatalFailureHandler h = new FatalFailureHandler(5, exit, 5_000);
        h.closeOnFailure("WAL", step("WAL"));
        h.fail("WAL", new java.io.IOException("EIO"));
        assertTrue(h.awaitStopped(10, TimeUnit.SECONDS));
        assertEquals(List.of("WAL"), steps);
        // The rest of start-up registers afterwards: each is closed on the spot.
        h.closeListenersWith(step("listeners"));
        h.stopHeartbeatsWith(step("heartbeats"));
        assertEquals(List.of("WAL", "listeners", "heartbeats"), steps);
        assertEquals(List.of(3), exit.statuses);
    }

    @Test
    void registeringTheSameStepTwice_fails() {
        FatalFailureHandler h = new FatalFailureHandler(5, exit, 5_000);
        h.stopHeartbeatsWith(step("heartbeats"));
        assertThrows(IllegalStateException.class, () -> h.stopHeartbeatsWith(step("heartbeats")));
    }

    @Test
    void uncaughtException_onAThreadOfTheFactory_stopsTheBroker() throws Exception {
        FatalFailureHandler h = handler(5_000);
        Thread t = new NamedThreadFactory("aloft-test-worker", true, h).newThread(() -> {
            throw new IllegalStateException("worker died");
        });
        assertEquals("aloft-test-worker-1", t.getName());
        assertTrue(t.isDaemon());
        t.start();
        assertTrue(h.awaitStopped(10, TimeUnit.SECONDS));
        assertEquals(List.of(3), exit.statuses);
        assertEquals(List.of("heartbeats", "listeners", "last registered", "first registered"), steps);
    }
}

package io.aloft.broker.network;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

class RateLimitedWarningsTest {
    private final AtomicLong now = new AtomicLong(1_000_000_000L);
    private final RateLimitedWarnings warnings = new RateLimitedWarnings(
            LoggerFactory.getLogger(RateLimitedWarningsTest.class), "test lines", 3, TimeUnit.SECONDS.toNanos(2),
            now::get);

    @Test
    void tryAcquire_burstThenOnePerRefill() {
        assertTrue(warnings.tryAcquire("a"));
        assertTrue(warnings.tryAcquire("a"));
        assertTrue(warnings.tryAcquire("a"));
        assertFalse(warnings.tryAcquire("a"), "the burst is spent");
        now.addAndGet(TimeUnit.SECONDS.toNanos(1));
        assertFalse(warnings.tryAcquire("b"), "half a refill is not a line");
        now.addAndGet(TimeUnit.SECONDS.toNanos(1));
        assertTrue(warnings.tryAcquire("b"));
        assertFalse(warnings.tryAcquire("b"));
        assertEquals(3, warnings.pendingSuppressed());
    }

    @Test
    void tryAcquire_longSilence_refillsNoMoreThanTheBurst() {
        for (int i = 0; i < 3; i++) {
            warnings.tryAcquire("a");
        }
        now.addAndGet(TimeUnit.HOURS.toNanos(1));
        int allowed = 0;
        for (int i = 0; i < 100; i++) {
            allowed += warnings.tryAcquire("a") ? 1 : 0;
        }
        assertEquals(3, allowed);
    }

    @Test
    void flushSuppressed_resetsTheCounts() {
        for (int i = 0; i < 10; i++) {
            warnings.warn("kind", "line {}", i);
        }
        assertEquals(7, warnings.pendingSuppressed());
        warnings.flushSuppressed();
        assertEquals(0, warnings.pendingSuppressed());
    }
}

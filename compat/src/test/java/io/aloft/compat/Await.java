package io.aloft.compat;

import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.function.Supplier;

/**
 * Polling another process until something holds, with a deadline: the only way to learn when a
 * child has done its part. Stateless.
 */
final class Await {
    private static final long POLL_MS = 200;

    private Await() {
    }

    /**
     * Calls {@code probe} until it returns non-null, and returns that. A probe that throws is asked
     * again (the other side may not be up yet); the last exception is reported if time runs out.
     *
     * @param seen what the caller last observed, for the failure message
     * @throws AssertionError after {@code timeout}, naming {@code what}, {@code seen} and the last exception
     */
    static <T> T until(String what, Duration timeout, Callable<T> probe, Supplier<String> seen)
            throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        Exception last = null;
        while (true) {
            try {
                T result = probe.call();
                if (result != null) {
                    return result;
                }
            } catch (InterruptedException e) {
                throw e;
            } catch (Exception e) {
                last = e;
            }
            if (System.nanoTime() > deadline) {
                throw new AssertionError("not within " + timeout.toSeconds() + " s: " + what + "; last seen: "
                        + seen.get() + (last == null ? "" : "; last error: " + last));
            }
            Thread.sleep(POLL_MS);
        }
    }
}

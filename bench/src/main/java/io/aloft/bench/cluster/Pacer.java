package io.aloft.bench.cluster;

/**
 * Runs an action a fixed number of times a second on its own daemon thread until stopped, open
 * loop: after a late wake-up it catches up in a burst, so the count after t seconds is the rate
 * times t whatever the machine's load (unless the action itself blocks). The fixed-rate producer
 * of the fetch and CPU-per-byte benchmarks.
 *
 * <p>Thread-safe: the action runs on the pacer's thread only; {@link #count} and {@link #stop} from any.
 */
public final class Pacer {
    private final Thread thread;
    private volatile boolean running = true;
    private volatile long count;

    private Pacer(String threadName, int perSecond, Runnable action) {
        thread = new Thread(() -> {
            long start = System.nanoTime();
            long done = 0;
            while (running) {
                long due = (System.nanoTime() - start) * perSecond / 1_000_000_000L;
                for (; done < due && running; done++) {
                    action.run();
                }
                count = done;
                try {
                    Thread.sleep(2);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }, threadName);
        thread.setDaemon(true);
    }

    /** Starts running {@code action} {@code perSecond} times a second on a thread named {@code threadName}. */
    public static Pacer start(String threadName, int perSecond, Runnable action) {
        Pacer pacer = new Pacer(threadName, perSecond, action);
        pacer.thread.start();
        return pacer;
    }

    /** How many times the action has run. */
    public long count() {
        return count;
    }

    /** Stops the pacer and waits until its thread is done; {@link #count} is final then. */
    public void stop() throws InterruptedException {
        running = false;
        thread.join();
    }

    /** Stops the pacer without waiting (for a close on an error path). */
    public void halt() {
        running = false;
    }
}

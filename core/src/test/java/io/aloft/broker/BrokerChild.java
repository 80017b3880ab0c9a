package io.aloft.broker;

import java.io.IOException;
import java.io.InputStream;

/**
 * {@link BrokerMain} in a child JVM that never outlives the test JVM that started it.
 *
 * <p>Arguments are those of {@link BrokerMain}. The parent keeps this process's standard input open
 * and never writes to it: end of input means the parent is gone (or closed it on purpose), and the
 * broker halts at once, like a SIGKILL: no shutdown hook, no graceful close, nothing left running
 * on the shared machine. Everything else, including the exit status, is {@link BrokerMain}'s.
 */
public final class BrokerChild {
    /** The status of a child halted because its parent went away: none of {@link BrokerMain}'s. */
    static final int PARENT_GONE_STATUS = 99;

    private BrokerChild() {
    }

    public static void main(String[] args) throws Exception {
        watchParent();
        BrokerMain.main(args);
    }

    /**
     * Starts a daemon thread that halts this JVM (status {@link #PARENT_GONE_STATUS}, no shutdown
     * hooks) when standard input ends: the parent is gone or closed it on purpose. For every child
     * JVM of the tests whose parent keeps its standard input open and writes nothing.
     */
    public static void watchParent() {
        Thread watchdog = new Thread(() -> {
            try (InputStream in = System.in) {
                while (in.read() >= 0) {
                    // The parent sends nothing; any byte is ignored, only EOF matters.
                }
            } catch (IOException e) {
                // A broken pipe also means the parent is gone.
            }
            Runtime.getRuntime().halt(PARENT_GONE_STATUS);
        }, "parent-watchdog");
        watchdog.setDaemon(true);
        watchdog.start();
    }
}

package io.aloft.broker;

import io.aloft.wal.device.FaultyFileChannel;
import java.io.IOException;
import java.io.InputStream;
import java.nio.channels.FileChannel;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * {@link BrokerMain} in a child JVM with a fault the parent injects on cue, for
 * {@link BrokerCriticalFailureTest}. Arguments are {@link BrokerMain}'s; {@code -Daloft.test.fault}
 * picks the fault (read here only, never by the broker):
 * <ul>
 *   <li>{@code wal}: the WAL's device is a {@link FaultyFileChannel} whose writes and fsyncs fail
 *       (EIO) from the cue on;</li>
 *   <li>{@code thread}: on the cue, a task on the broker's scheduler throws;</li>
 *   <li>{@code none} (default): no fault.</li>
 * </ul>
 * The cue is a byte {@code f} on standard input. As with {@link BrokerChild}, end of input means
 * the parent is gone and the child halts at once (status {@link BrokerChild#PARENT_GONE_STATUS}).
 */
public final class FaultyBrokerChild {
    static final String FAULT_PROPERTY = "aloft.test.fault";
    static final String THREAD_FAULT_MESSAGE = "injected failure on a broker thread";

    private FaultyBrokerChild() {
    }

    public static void main(String[] args) throws Exception {
        String fault = System.getProperty(FAULT_PROPERTY, "none");
        AtomicBoolean walBroken = new AtomicBoolean();
        CompletableFuture<Broker> broker = new CompletableFuture<>();
        Runnable inject = switch (fault) {
            case "wal" -> () -> walBroken.set(true);
            case "thread" -> () -> broker.join().scheduler().execute(() -> { // join: the cue may come during start
                throw new IllegalStateException(THREAD_FAULT_MESSAGE);
            });
            case "none" -> () -> { };
            default -> throw new IllegalArgumentException(FAULT_PROPERTY + "=" + fault + " is not wal, thread or none");
        };
        Thread cues = new Thread(() -> {
            try (InputStream in = System.in) {
                int b;
                while ((b = in.read()) >= 0) {
                    if (b == 'f') {
                        System.out.println("=== injecting fault '" + fault + "'");
                        inject.run();
                    }
                }
            } catch (IOException e) {
                // A broken pipe also means the parent is gone.
            }
            Runtime.getRuntime().halt(BrokerChild.PARENT_GONE_STATUS);
        }, "parent-cues");
        cues.setDaemon(true);
        cues.start();
        BrokerMain.run(args, fault.equals("wal") ? FaultyFileChannel.opener(walBroken::get) : FileChannel::open,
                broker::complete);
    }
}

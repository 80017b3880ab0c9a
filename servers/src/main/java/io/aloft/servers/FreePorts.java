package io.aloft.servers;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Ports free on 127.0.0.1 now, for servers started a moment later (usually child processes).
 *
 * <p>Taken below Linux's ephemeral range (32768-60999 by default): a port from that range, free
 * when checked, can be handed to some outgoing connection of any process before the server binds
 * it (a broker child failed with "Address already in use" that way); one below it cannot. Never
 * the same port twice in one JVM.
 *
 * <p>Thread-safe.
 */
public final class FreePorts {
    static final int FIRST = 20_000;
    static final int LAST = 32_000;
    private static final Set<Integer> HANDED_OUT = ConcurrentHashMap.newKeySet();

    private FreePorts() {
    }

    /** A port no server listens on now, not handed out before by this JVM. */
    public static int next() {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        for (int attempt = 0; attempt < 1_000; attempt++) {
            int port = random.nextInt(FIRST, LAST + 1);
            if (!HANDED_OUT.add(port)) {
                continue;
            }
            try (ServerSocket s = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
                return s.getLocalPort();
            } catch (IOException e) {
                // In use: another.
            }
        }
        throw new UncheckedIOException(new IOException("no free port found in " + FIRST + "-" + LAST));
    }
}

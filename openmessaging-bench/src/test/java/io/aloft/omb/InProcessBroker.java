package io.aloft.omb;

import io.aloft.broker.Broker;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/**
 * A single-node Aloft broker in this JVM, on loopback ports under a temp dir, sized small for
 * tests (64 MiB WAL, 16 MiB caches, local object storage under the data dir). Not thread-safe;
 * one test class owns it.
 */
public final class InProcessBroker implements AutoCloseable {
    private final Broker broker;

    public InProcessBroker(Path dataDir) throws Exception {
        this(dataDir, Map.of());
    }

    /** @param extra broker properties applied last, e.g. {@code aloft.transactions.enable} */
    public InProcessBroker(Path dataDir, Map<String, String> extra) throws Exception {
        Map<String, String> props = new HashMap<>();
        props.put("node.id", "1");
        props.put("listeners", "PLAINTEXT://127.0.0.1:0");
        props.put("controller.quorum.voters", "1@127.0.0.1:" + freePort());
        props.put("aloft.data.dir", dataDir.toString());
        props.put("wal.capacity.bytes", Long.toString(64L << 20));
        props.put("s3.log.cache.size.bytes", Long.toString(16L << 20));
        props.put("s3.wal.upload.threshold.bytes", Long.toString(4L << 20));
        props.put("s3.stream.object.split.threshold.bytes", Long.toString(4L << 20));
        props.put("s3.block.cache.size.bytes", Long.toString(16L << 20));
        // Fewer group-offset partitions to open at start, and no wait for more members before a
        // new group's first rebalance: the runner's consumers join one group each.
        props.put("offsets.topic.num.partitions", "2");
        props.put("group.initial.rebalance.delay.ms", "0");
        props.putAll(extra);
        broker = Broker.start(props);
    }

    public String bootstrap() {
        return "127.0.0.1:" + broker.port("PLAINTEXT");
    }

    @Override
    public void close() {
        broker.close();
    }

    private static int freePort() {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}

package io.aloft.broker;

import io.aloft.broker.fetch.FetchSessionConfig;
import io.aloft.broker.lifecycle.ProcessExit;
import io.aloft.controller.TestQuorum;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.admin.AdminClientConfig;

/** A single-node broker (embedded controller voter) on free loopback ports under a temp dir, sized for tests. */
public final class TestBroker implements AutoCloseable {
    private final Map<String, String> props;
    private final long fetchSessionEvictionMs;
    private final Broker broker;

    private TestBroker(Map<String, String> props, long fetchSessionEvictionMs) throws Exception {
        this.props = Map.copyOf(props);
        this.fetchSessionEvictionMs = fetchSessionEvictionMs;
        broker = Broker.start(props, ProcessExit.keepRunning(), FileChannel::open, fetchSessionEvictionMs);
    }

    private TestBroker(Map<String, String> props) throws Exception {
        this(props, FetchSessionConfig.MIN_EVICTION_MS);
    }

    /** A broker whose fetch sessions may be evicted after {@code fetchSessionEvictionMs} instead of 2 minutes. */
    public static TestBroker withFetchSessionEvictionMs(Path dir, Map<String, String> overrides,
            long fetchSessionEvictionMs) throws Exception {
        return new TestBroker(defaults(dir, overrides), fetchSessionEvictionMs);
    }

    public TestBroker(Path dir, Map<String, String> overrides) throws Exception {
        this(defaults(dir, overrides));
    }

    static Map<String, String> defaults(Path dir, Map<String, String> overrides) {
        Map<String, String> props = new HashMap<>();
        props.put("node.id", "1");
        props.put("listeners", "PLAINTEXT://127.0.0.1:0");
        props.put("controller.quorum.voters", "1@127.0.0.1:" + TestQuorum.freePort());
        props.put("aloft.data.dir", dir.toString());
        props.put("wal.capacity.bytes", Long.toString(64L << 20));
        props.put("s3.log.cache.size.bytes", Long.toString(16L << 20));
        props.put("s3.wal.upload.threshold.bytes", Long.toString(4L << 20));
        props.put("s3.stream.object.split.threshold.bytes", Long.toString(4L << 20));
        props.put("s3.block.cache.size.bytes", Long.toString(16L << 20));
        // Kafka's 50 partitions would open 50 logs at every test broker's start.
        props.put("offsets.topic.num.partitions", "4");
        // Likewise Kafka's 50 partitions of __share_group_state, made on the first share-state call.
        props.put("share.coordinator.state.topic.num.partitions", "4");
        props.putAll(overrides);
        return props;
    }

    /**
     * A new broker on this one's data dir and settings, to be called after {@link #close}. The
     * controller voter port stays the same (the quorum's stored configuration names it); the client
     * listener gets a new port, so clients must be created anew from {@link #bootstrap}.
     */
    public TestBroker restart() throws Exception {
        return new TestBroker(props, fetchSessionEvictionMs);
    }

    public TestBroker(Path dir) throws Exception {
        this(dir, Map.of());
    }

    /** The properties it was started with. */
    public Map<String, String> props() {
        return props;
    }

    public Broker broker() {
        return broker;
    }

    public String bootstrap() {
        return "127.0.0.1:" + broker.port("PLAINTEXT");
    }

    public Properties clientProps() {
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap());
        return p;
    }

    @Override
    public void close() {
        broker.close();
    }
}

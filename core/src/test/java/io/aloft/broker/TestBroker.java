package io.aloft.broker;

import io.aloft.controller.TestQuorum;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.admin.AdminClientConfig;

/** A single-node broker (embedded controller voter) on free loopback ports under a temp dir, sized for tests. */
public final class TestBroker implements AutoCloseable {
    private final Broker broker;

    public TestBroker(Path dir, Map<String, String> overrides) throws Exception {
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
        props.putAll(overrides);
        broker = Broker.start(props);
    }

    public TestBroker(Path dir) throws Exception {
        this(dir, Map.of());
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

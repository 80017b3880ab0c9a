package io.aloft.bench.controller;

import io.aloft.controller.ControllerConfig;
import io.aloft.controller.client.ControllerClient;
import io.aloft.controller.server.ControllerServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** Controller voters in this JVM on free loopback ports, each with its own directory under {@code root}. */
final class LocalQuorum implements AutoCloseable {
    private final Path root;
    private final String voters;
    private final ControllerServer[] servers;
    private final long snapshotInterval;

    LocalQuorum(Path root, int size, long snapshotInterval) throws IOException {
        this.root = root;
        this.snapshotInterval = snapshotInterval;
        List<String> entries = new ArrayList<>();
        for (int id = 1; id <= size; id++) {
            try (ServerSocket s = new ServerSocket(0, 0, InetAddress.getLoopbackAddress())) {
                entries.add(id + "@127.0.0.1:" + s.getLocalPort());
            }
        }
        this.voters = String.join(",", entries);
        this.servers = new ControllerServer[size];
        for (int id = 1; id <= size; id++) {
            start(id);
        }
    }

    ControllerConfig config(int nodeId) {
        return ControllerConfig.builder().nodeId(nodeId).voters(voters).dataDir(root.resolve("voter-" + nodeId))
                .snapshotIntervalEntries(snapshotInterval).clientConnections(8).build();
    }

    void start(int id) throws IOException {
        servers[id - 1] = ControllerServer.start(config(id));
    }

    void stop(int id) throws IOException {
        ControllerServer s = servers[id - 1];
        servers[id - 1] = null;
        if (s != null) {
            s.close();
        }
    }

    ControllerServer server(int id) {
        return servers[id - 1];
    }

    ControllerClient newClient() {
        return ControllerClient.create(config(1000));
    }

    int awaitLeader() throws Exception {
        long deadline = System.nanoTime() + 60_000_000_000L;
        while (System.nanoTime() < deadline) {
            for (ControllerServer s : servers) {
                if (s != null && s.isLeader()) {
                    return s.nodeId();
                }
            }
            Thread.sleep(10);
        }
        throw new IllegalStateException("no leader within 60 s");
    }

    @Override
    public void close() throws IOException {
        for (int id = 1; id <= servers.length; id++) {
            stop(id);
        }
    }
}

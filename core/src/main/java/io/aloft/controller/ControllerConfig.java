package io.aloft.controller;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Settings of the controller quorum and of its clients. Keys follow Kafka's where Kafka has one
 * ({@code node.id}, {@code controller.quorum.voters}, {@code metadata.log.dir},
 * {@code broker.session.timeout.ms}, {@code broker.heartbeat.interval.ms}). Invalid values fail
 * with an {@link IllegalArgumentException} whose message starts with the key.
 */
public final class ControllerConfig {

    public static final String NODE_ID_CONFIG = "node.id";
    public static final String NODE_ID_DOC = "This node's id. It is a controller voter when it appears in "
            + "controller.quorum.voters, otherwise it only talks to the quorum as a client.";
    public static final int NODE_ID_DEFAULT = 1;

    public static final String VOTERS_CONFIG = "controller.quorum.voters";
    public static final String VOTERS_DOC = "The controller quorum as id@host:port,id@host:port,... (1, 3 or 5 "
            + "voters). Each voter listens for Raft traffic on its host:port.";
    public static final String VOTERS_DEFAULT = "1@127.0.0.1:9093";

    public static final String DATA_DIR_CONFIG = "metadata.log.dir";
    public static final String DATA_DIR_DOC = "Directory of this voter's Raft log and snapshots (one per voter).";
    public static final String DATA_DIR_DEFAULT = "data/metadata";

    public static final String SNAPSHOT_INTERVAL_CONFIG = "controller.snapshot.interval.entries";
    public static final String SNAPSHOT_INTERVAL_DOC = "A voter snapshots its state after this many log entries "
            + "and purges the log behind the snapshot; restart replays at most this many entries.";
    public static final long SNAPSHOT_INTERVAL_DEFAULT = 100_000;

    public static final String SESSION_TIMEOUT_CONFIG = "broker.session.timeout.ms";
    public static final String SESSION_TIMEOUT_DOC = "A broker whose heartbeats stop for this long is fenced by "
            + "the controller leader and its partitions move to other brokers.";
    public static final long SESSION_TIMEOUT_DEFAULT = 9_000;

    public static final String HEARTBEAT_INTERVAL_CONFIG = "broker.heartbeat.interval.ms";
    public static final String HEARTBEAT_INTERVAL_DOC = "How often a broker heartbeats to the controller.";
    public static final long HEARTBEAT_INTERVAL_DEFAULT = 2_000;

    public static final String REQUEST_TIMEOUT_CONFIG = "controller.request.timeout.ms";
    public static final String REQUEST_TIMEOUT_DOC = "How long a client keeps retrying one controller request "
            + "(through leader changes) before failing it.";
    public static final long REQUEST_TIMEOUT_DEFAULT = 30_000;

    public static final String CLIENT_CONNECTIONS_CONFIG = "controller.client.connections";
    public static final String CLIENT_CONNECTIONS_DOC = "Raft clients per controller client. Each sends its "
            + "requests in order, so more of them let more commands be in flight at once.";
    public static final int CLIENT_CONNECTIONS_DEFAULT = 4;

    /** A key with its default and documentation, for the README and config listings. */
    public record Key(String name, String defaultValue, String doc) {
    }

    public static final List<Key> KEYS = List.of(
            new Key(NODE_ID_CONFIG, Integer.toString(NODE_ID_DEFAULT), NODE_ID_DOC),
            new Key(VOTERS_CONFIG, VOTERS_DEFAULT, VOTERS_DOC),
            new Key(DATA_DIR_CONFIG, DATA_DIR_DEFAULT, DATA_DIR_DOC),
            new Key(SNAPSHOT_INTERVAL_CONFIG, Long.toString(SNAPSHOT_INTERVAL_DEFAULT), SNAPSHOT_INTERVAL_DOC),
            new Key(SESSION_TIMEOUT_CONFIG, Long.toString(SESSION_TIMEOUT_DEFAULT), SESSION_TIMEOUT_DOC),
            new Key(HEARTBEAT_INTERVAL_CONFIG, Long.toString(HEARTBEAT_INTERVAL_DEFAULT), HEARTBEAT_INTERVAL_DOC),
            new Key(REQUEST_TIMEOUT_CONFIG, Long.toString(REQUEST_TIMEOUT_DEFAULT), REQUEST_TIMEOUT_DOC),
            new Key(CLIENT_CONNECTIONS_CONFIG, Integer.toString(CLIENT_CONNECTIONS_DEFAULT), CLIENT_CONNECTIONS_DOC));

    /** One member of the quorum. */
    public record Voter(int id, String host, int port) {
        @Override
        public String toString() {
            return id + "@" + host + ":" + port;
        }
    }

    private final int nodeId;
    private final List<Voter> voters;
    private final Path dataDir;
    private final long snapshotIntervalEntries;
    private final long sessionTimeoutMs;
    private final long heartbeatIntervalMs;
    private final long requestTimeoutMs;
    private final int clientConnections;

    private ControllerConfig(Builder b) {
        require(b.nodeId >= 0, NODE_ID_CONFIG, b.nodeId + " is negative");
        this.voters = parseVoters(b.voters);
        require(b.dataDir != null && !b.dataDir.toString().isEmpty(), DATA_DIR_CONFIG, "must be set");
        require(b.snapshotIntervalEntries >= 100, SNAPSHOT_INTERVAL_CONFIG, b.snapshotIntervalEntries
                + " is below 100");
        require(b.heartbeatIntervalMs > 0, HEARTBEAT_INTERVAL_CONFIG, "must be positive");
        require(b.sessionTimeoutMs > b.heartbeatIntervalMs, SESSION_TIMEOUT_CONFIG, b.sessionTimeoutMs
                + " must exceed " + HEARTBEAT_INTERVAL_CONFIG + "=" + b.heartbeatIntervalMs);
        require(b.requestTimeoutMs >= 1_000, REQUEST_TIMEOUT_CONFIG, b.requestTimeoutMs + " is below 1000");
        require(b.clientConnections >= 1 && b.clientConnections <= 64, CLIENT_CONNECTIONS_CONFIG,
                b.clientConnections + " is outside [1, 64]");
        this.nodeId = b.nodeId;
        this.dataDir = b.dataDir;
        this.snapshotIntervalEntries = b.snapshotIntervalEntries;
        this.sessionTimeoutMs = b.sessionTimeoutMs;
        this.heartbeatIntervalMs = b.heartbeatIntervalMs;
        this.requestTimeoutMs = b.requestTimeoutMs;
        this.clientConnections = b.clientConnections;
    }

    /**
     * Reads the keys of {@link #KEYS} from properties (other keys are ignored: the broker's
     * properties file holds many more); missing keys take their defaults.
     */
    public static ControllerConfig fromProperties(Map<?, ?> props) {
        Builder b = builder();
        b.nodeId((int) number(props, NODE_ID_CONFIG, NODE_ID_DEFAULT));
        b.voters(string(props, VOTERS_CONFIG, VOTERS_DEFAULT));
        b.dataDir(Path.of(string(props, DATA_DIR_CONFIG, DATA_DIR_DEFAULT)));
        b.snapshotIntervalEntries(number(props, SNAPSHOT_INTERVAL_CONFIG, SNAPSHOT_INTERVAL_DEFAULT));
        b.sessionTimeoutMs(number(props, SESSION_TIMEOUT_CONFIG, SESSION_TIMEOUT_DEFAULT));
        b.heartbeatIntervalMs(number(props, HEARTBEAT_INTERVAL_CONFIG, HEARTBEAT_INTERVAL_DEFAULT));
        b.requestTimeoutMs(number(props, REQUEST_TIMEOUT_CONFIG, REQUEST_TIMEOUT_DEFAULT));
        b.clientConnections((int) number(props, CLIENT_CONNECTIONS_CONFIG, CLIENT_CONNECTIONS_DEFAULT));
        return b.build();
    }

    private static String string(Map<?, ?> props, String key, String defaultValue) {
        Object v = props.get(key);
        return v == null ? defaultValue : v.toString().trim();
    }

    private static long number(Map<?, ?> props, String key, long defaultValue) {
        Object v = props.get(key);
        if (v == null) {
            return defaultValue;
        }
        try {
            long n = Long.parseLong(v.toString().trim());
            boolean outsideInt = n > Integer.MAX_VALUE || n < Integer.MIN_VALUE;
            if (outsideInt && (key.equals(NODE_ID_CONFIG) || key.equals(CLIENT_CONNECTIONS_CONFIG))) {
                throw new NumberFormatException();
            }
            return n;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(key + ": '" + v + "' is not a valid number");
        }
    }

    /** Parses {@code id@host:port,...}; ids unique, 1 to 7 voters. */
    static List<Voter> parseVoters(String spec) {
        require(spec != null && !spec.isBlank(), VOTERS_CONFIG, "must list at least one voter as id@host:port");
        List<Voter> voters = new ArrayList<>();
        Set<Integer> ids = new HashSet<>();
        for (String part : spec.split(",")) {
            String entry = part.trim();
            int at = entry.indexOf('@');
            int colon = entry.lastIndexOf(':');
            require(at > 0 && colon > at + 1 && colon < entry.length() - 1, VOTERS_CONFIG,
                    "'" + entry + "' is not id@host:port");
            int id;
            int port;
            try {
                id = Integer.parseInt(entry.substring(0, at));
                port = Integer.parseInt(entry.substring(colon + 1));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(VOTERS_CONFIG + ": '" + entry + "' is not id@host:port");
            }
            require(id >= 0, VOTERS_CONFIG, "voter id " + id + " is negative");
            require(port > 0 && port <= 65535, VOTERS_CONFIG, "port " + port + " of voter " + id + " is out of range");
            require(ids.add(id), VOTERS_CONFIG, "voter id " + id + " appears twice");
            voters.add(new Voter(id, entry.substring(at + 1, colon), port));
        }
        require(voters.size() <= 7, VOTERS_CONFIG, voters.size() + " voters; use 1, 3 or 5");
        return List.copyOf(voters);
    }

    private static void require(boolean ok, String key, String message) {
        if (!ok) {
            throw new IllegalArgumentException(key + ": " + message);
        }
    }

    public static Builder builder() {
        return new Builder();
    }

    public int nodeId() {
        return nodeId;
    }

    public List<Voter> voters() {
        return voters;
    }

    /** This node's voter entry, or null when it is not a voter. */
    public Voter self() {
        return voters.stream().filter(v -> v.id() == nodeId).findFirst().orElse(null);
    }

    public Path dataDir() {
        return dataDir;
    }

    public long snapshotIntervalEntries() {
        return snapshotIntervalEntries;
    }

    public long sessionTimeoutMs() {
        return sessionTimeoutMs;
    }

    public long heartbeatIntervalMs() {
        return heartbeatIntervalMs;
    }

    public long requestTimeoutMs() {
        return requestTimeoutMs;
    }

    public int clientConnections() {
        return clientConnections;
    }

    /** Fail-fast builder; {@link #build()} validates. */
    public static final class Builder {
        private int nodeId = NODE_ID_DEFAULT;
        private String voters = VOTERS_DEFAULT;
        private Path dataDir = Path.of(DATA_DIR_DEFAULT);
        private long snapshotIntervalEntries = SNAPSHOT_INTERVAL_DEFAULT;
        private long sessionTimeoutMs = SESSION_TIMEOUT_DEFAULT;
        private long heartbeatIntervalMs = HEARTBEAT_INTERVAL_DEFAULT;
        private long requestTimeoutMs = REQUEST_TIMEOUT_DEFAULT;
        private int clientConnections = CLIENT_CONNECTIONS_DEFAULT;

        public Builder nodeId(int v) {
            nodeId = v;
            return this;
        }

        public Builder voters(String v) {
            voters = v;
            return this;
        }

        public Builder dataDir(Path v) {
            dataDir = v;
            return this;
        }

        public Builder snapshotIntervalEntries(long v) {
            snapshotIntervalEntries = v;
            return this;
        }

        public Builder sessionTimeoutMs(long v) {
            sessionTimeoutMs = v;
            return this;
        }

        public Builder heartbeatIntervalMs(long v) {
            heartbeatIntervalMs = v;
            return this;
        }

        public Builder requestTimeoutMs(long v) {
            requestTimeoutMs = v;
            return this;
        }

        public Builder clientConnections(int v) {
            clientConnections = v;
            return this;
        }

        public ControllerConfig build() {
            return new ControllerConfig(this);
        }
    }
}

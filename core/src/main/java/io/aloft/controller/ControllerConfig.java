package io.aloft.controller;

import io.aloft.config.ConfigDefinition;
import io.aloft.config.ConfigException;
import io.aloft.config.ConfigKey;
import io.aloft.config.ConfigType;
import io.aloft.config.ConfigValues;
import io.aloft.config.Validator;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Settings of the controller quorum and of its clients. Keys follow Kafka's where Kafka has one
 * ({@code node.id}, {@code controller.quorum.voters}, {@code metadata.log.dir},
 * {@code broker.session.timeout.ms}, {@code broker.heartbeat.interval.ms}), declared once in
 * {@link #DEFINITION}. Invalid values fail with a {@link ConfigException} whose message starts
 * with the key. Immutable.
 */
public final class ControllerConfig {

    public static final String NODE_ID_CONFIG = "node.id";
    public static final ConfigKey<Integer> NODE_ID = ConfigKey.intKey(NODE_ID_CONFIG).defaultValue(1)
            .validator(Validator.atLeast(0))
            .doc("This node's id. It is a controller voter when it appears in controller.quorum.voters, otherwise "
                    + "it only talks to the quorum as a client. Also the id under which the broker owns its streams "
                    + "and writes its objects.")
            .build();

    public static final String VOTERS_CONFIG = "controller.quorum.voters";
    public static final ConfigKey<List<Voter>> VOTERS = ConfigKey.customKey(VOTERS_CONFIG, ConfigType.LIST,
            ControllerConfig::parseVoters, ConfigKey::formatList)
            .defaultValue(List.of(new Voter(1, "127.0.0.1", 9093)))
            .doc("The controller quorum as id@host:port,id@host:port,... (1, 3 or 5 voters; at most 7). Each "
                    + "voter listens for Raft traffic on its host:port. Kafka's key and format.")
            .build();

    /** A role a process takes: {@code process.roles} lists them. */
    public enum Role {
        BROKER, CONTROLLER;

        /** As written in {@code process.roles}. */
        @Override
        public String toString() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    public static final String PROCESS_ROLES_CONFIG = "process.roles";
    public static final ConfigKey<Set<Role>> PROCESS_ROLES = ConfigKey.customKey(PROCESS_ROLES_CONFIG,
            ConfigType.LIST, ControllerConfig::parseRoles, ConfigKey::formatList)
            .defaultValue(Set.of())
            .defaultText("(none: a broker, and a controller voter too when node.id is in controller.quorum.voters)")
            .doc("What this process runs, Kafka's key and values: broker, controller, or broker,controller. "
                    + "controller runs only a controller voter (a dedicated controller node: no listeners, WAL or "
                    + "object store); broker only a broker, which talks to the quorum as a client; "
                    + "broker,controller both, the broker embedding its voter. A controller role needs node.id in "
                    + "controller.quorum.voters and a broker-only process must not be listed there. Unset, the "
                    + "process is a broker whose voter role follows controller.quorum.voters.")
            .build();

    public static final String DATA_DIR_CONFIG = "metadata.log.dir";
    public static final ConfigKey<Path> DATA_DIR = ConfigKey.pathKey(DATA_DIR_CONFIG)
            .defaultValue(Path.of("data/metadata"))
            .defaultText("`data/metadata` (the broker's: `<aloft.data.dir>/metadata`)")
            .doc("Directory of this voter's Raft log and snapshots (one per voter).")
            .build();

    public static final String SNAPSHOT_INTERVAL_CONFIG = "controller.snapshot.interval.entries";
    public static final ConfigKey<Long> SNAPSHOT_INTERVAL = ConfigKey.longKey(SNAPSHOT_INTERVAL_CONFIG)
            .defaultValue(100_000L).validator(Validator.atLeast(100L))
            .doc("A voter snapshots its state after this many log entries and purges the log behind the snapshot; "
                    + "restart replays at most this many entries.")
            .build();

    public static final String SESSION_TIMEOUT_CONFIG = "broker.session.timeout.ms";
    public static final ConfigKey<Long> SESSION_TIMEOUT = ConfigKey.longKey(SESSION_TIMEOUT_CONFIG)
            .defaultValue(9_000L).validator(Validator.atLeast(1L))
            .doc("A broker whose heartbeats stop for this long is fenced by the controller leader and its "
                    + "partitions move to other brokers. Must exceed broker.heartbeat.interval.ms.")
            .build();

    public static final String HEARTBEAT_INTERVAL_CONFIG = "broker.heartbeat.interval.ms";
    public static final ConfigKey<Long> HEARTBEAT_INTERVAL = ConfigKey.longKey(HEARTBEAT_INTERVAL_CONFIG)
            .defaultValue(2_000L).validator(Validator.atLeast(1L))
            .doc("How often a broker heartbeats to the controller.")
            .build();

    public static final String REQUEST_TIMEOUT_CONFIG = "controller.request.timeout.ms";
    public static final ConfigKey<Long> REQUEST_TIMEOUT = ConfigKey.longKey(REQUEST_TIMEOUT_CONFIG)
            .defaultValue(30_000L).validator(Validator.atLeast(1_000L))
            .doc("How long a client keeps retrying one controller request (through leader changes) before "
                    + "failing it with UNAVAILABLE.")
            .build();

    public static final String CLIENT_CONNECTIONS_CONFIG = "controller.client.connections";
    public static final ConfigKey<Integer> CLIENT_CONNECTIONS = ConfigKey.intKey(CLIENT_CONNECTIONS_CONFIG)
            .defaultValue(4).validator(Validator.between(1, 64))
            .doc("Raft clients per controller client. Each sends its requests in order, with one batch in "
                    + "flight, so more of them let more commands from one broker be in flight at once.")
            .build();

    /** Every key the controller and its clients read. */
    public static final ConfigDefinition DEFINITION = ConfigDefinition.of("controller", NODE_ID, PROCESS_ROLES, VOTERS,
            DATA_DIR,
            SNAPSHOT_INTERVAL, SESSION_TIMEOUT, HEARTBEAT_INTERVAL, REQUEST_TIMEOUT, CLIENT_CONNECTIONS);

    /** One member of the quorum. */
    public record Voter(int id, String host, int port) {
        @Override
        public String toString() {
            return id + "@" + host + ":" + port;
        }
    }

    private final int nodeId;
    private final Set<Role> roles;
    private final List<Voter> voters;
    private final Path dataDir;
    private final long snapshotIntervalEntries;
    private final long sessionTimeoutMs;
    private final long heartbeatIntervalMs;
    private final long requestTimeoutMs;
    private final int clientConnections;

    private ControllerConfig(Builder b) {
        if (b.voters == null) {
            throw new ConfigException(VOTERS_CONFIG, "must list at least one voter as id@host:port");
        }
        if (b.sessionTimeoutMs <= b.heartbeatIntervalMs) {
            throw new ConfigException(SESSION_TIMEOUT_CONFIG, b.sessionTimeoutMs + " must exceed "
                    + HEARTBEAT_INTERVAL_CONFIG + "=" + b.heartbeatIntervalMs);
        }
        boolean listed = b.voters.stream().anyMatch(v -> v.id() == b.nodeId);
        if (b.roles.contains(Role.CONTROLLER) && !listed) {
            throw new ConfigException(PROCESS_ROLES_CONFIG, formatRoles(b.roles) + ": node.id " + b.nodeId
                    + " is not one of the voters in " + VOTERS_CONFIG + "=" + ConfigKey.formatList(b.voters));
        }
        if (b.roles.equals(Set.of(Role.BROKER)) && listed) {
            throw new ConfigException(PROCESS_ROLES_CONFIG, "broker: node.id " + b.nodeId + " is a voter in "
                    + VOTERS_CONFIG + "; a broker-only process cannot be one (use broker,controller)");
        }
        this.nodeId = b.nodeId;
        this.roles = b.roles;
        this.voters = b.voters;
        this.dataDir = b.dataDir;
        this.snapshotIntervalEntries = b.snapshotIntervalEntries;
        this.sessionTimeoutMs = b.sessionTimeoutMs;
        this.heartbeatIntervalMs = b.heartbeatIntervalMs;
        this.requestTimeoutMs = b.requestTimeoutMs;
        this.clientConnections = b.clientConnections;
    }

    /**
     * Reads the keys of {@link #DEFINITION} from properties (other keys are ignored: the broker's
     * properties file holds many more); missing keys take their defaults.
     *
     * @throws ConfigException naming the first bad key
     */
    public static ControllerConfig fromProperties(Map<?, ?> props) {
        ConfigValues v = DEFINITION.parse(props);
        Builder b = builder().nodeId(v.get(NODE_ID));
        b.voters = v.get(VOTERS);
        b.roles = v.get(PROCESS_ROLES);
        return b.dataDir(v.get(DATA_DIR))
                .snapshotIntervalEntries(v.get(SNAPSHOT_INTERVAL))
                .sessionTimeoutMs(v.get(SESSION_TIMEOUT))
                .heartbeatIntervalMs(v.get(HEARTBEAT_INTERVAL))
                .requestTimeoutMs(v.get(REQUEST_TIMEOUT))
                .clientConnections(v.get(CLIENT_CONNECTIONS))
                .build();
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
                throw new ConfigException(VOTERS_CONFIG, "'" + entry + "' is not id@host:port");
            }
            require(id >= 0, VOTERS_CONFIG, "voter id " + id + " is negative");
            require(port > 0 && port <= 65535, VOTERS_CONFIG, "port " + port + " of voter " + id + " is out of range");
            require(ids.add(id), VOTERS_CONFIG, "voter id " + id + " appears twice");
            voters.add(new Voter(id, entry.substring(at + 1, colon), port));
        }
        require(voters.size() <= 7, VOTERS_CONFIG, voters.size() + " voters; use 1, 3 or 5");
        return List.copyOf(voters);
    }

    /** Parses {@code process.roles}: broker and/or controller, each once; empty for the default. */
    static Set<Role> parseRoles(String spec) {
        Set<Role> roles = java.util.EnumSet.noneOf(Role.class);
        if (spec == null || spec.isBlank()) {
            return Set.of();
        }
        for (String part : spec.split(",")) {
            String role = part.trim();
            Role r = switch (role) {
                case "broker" -> Role.BROKER;
                case "controller" -> Role.CONTROLLER;
                default -> throw new ConfigException(PROCESS_ROLES_CONFIG, "'" + role
                        + "' is not a role; use broker, controller or broker,controller");
            };
            require(roles.add(r), PROCESS_ROLES_CONFIG, "role " + role + " appears twice");
        }
        return Set.copyOf(roles);
    }

    private static String formatRoles(Set<Role> roles) {
        return roles.contains(Role.BROKER) ? (roles.contains(Role.CONTROLLER) ? "broker,controller" : "broker")
                : "controller";
    }

    private static void require(boolean ok, String key, String message) {
        if (!ok) {
            throw new ConfigException(key, message);
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

    /** This node's voter entry, or null when it is not a voter (not listed, or process.roles=broker). */
    public Voter self() {
        return voters.stream().filter(v -> v.id() == nodeId).findFirst().orElse(null);
    }

    /** Whether this process runs a broker: unless {@code process.roles} is {@code controller} alone. */
    public boolean runsBroker() {
        return roles.isEmpty() || roles.contains(Role.BROKER);
    }

    /** Whether this process runs only a controller voter ({@code process.roles=controller}). */
    public boolean controllerOnly() {
        return !runsBroker();
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

    /**
     * Fail-fast builder: each setter checks its value against the key's validator at once;
     * {@link #build()} checks the values against each other. Not thread-safe.
     */
    public static final class Builder {
        private int nodeId = NODE_ID.defaultValue();
        private Set<Role> roles = PROCESS_ROLES.defaultValue();
        private List<Voter> voters = VOTERS.defaultValue();
        private Path dataDir = DATA_DIR.defaultValue();
        private long snapshotIntervalEntries = SNAPSHOT_INTERVAL.defaultValue();
        private long sessionTimeoutMs = SESSION_TIMEOUT.defaultValue();
        private long heartbeatIntervalMs = HEARTBEAT_INTERVAL.defaultValue();
        private long requestTimeoutMs = REQUEST_TIMEOUT.defaultValue();
        private int clientConnections = CLIENT_CONNECTIONS.defaultValue();

        public Builder nodeId(int v) {
            nodeId = NODE_ID.validate(v);
            return this;
        }

        /** {@code process.roles} as written: broker, controller, broker,controller, or empty. */
        public Builder processRoles(String v) {
            roles = PROCESS_ROLES.parse(v);
            return this;
        }

        /** The quorum as {@code id@host:port,...}. */
        public Builder voters(String v) {
            voters = v == null ? null : VOTERS.parse(v);
            return this;
        }

        public Builder dataDir(Path v) {
            dataDir = DATA_DIR.validate(v);
            return this;
        }

        public Builder snapshotIntervalEntries(long v) {
            snapshotIntervalEntries = SNAPSHOT_INTERVAL.validate(v);
            return this;
        }

        public Builder sessionTimeoutMs(long v) {
            sessionTimeoutMs = SESSION_TIMEOUT.validate(v);
            return this;
        }

        public Builder heartbeatIntervalMs(long v) {
            heartbeatIntervalMs = HEARTBEAT_INTERVAL.validate(v);
            return this;
        }

        public Builder requestTimeoutMs(long v) {
            requestTimeoutMs = REQUEST_TIMEOUT.validate(v);
            return this;
        }

        public Builder clientConnections(int v) {
            clientConnections = CLIENT_CONNECTIONS.validate(v);
            return this;
        }

        /**
         * @throws ConfigException if no voters are set, or the session timeout does not exceed the
         *     heartbeat interval
         */
        public ControllerConfig build() {
            return new ControllerConfig(this);
        }
    }
}

package io.aloft.controller;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.aloft.config.ConfigException;
import io.aloft.controller.ControllerConfig.Voter;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;

class ControllerConfigTest {

    @Test
    void defaults() {
        ControllerConfig c = ControllerConfig.builder().build();
        assertEquals(1, c.nodeId());
        assertEquals(List.of(new Voter(1, "127.0.0.1", 9093)), c.voters());
        assertEquals(new Voter(1, "127.0.0.1", 9093), c.self());
        assertEquals(Path.of("data/metadata"), c.dataDir());
        assertEquals(100_000, c.snapshotIntervalEntries());
        assertEquals(9_000, c.sessionTimeoutMs());
        assertEquals(2_000, c.heartbeatIntervalMs());
        assertEquals(30_000, c.requestTimeoutMs());
        assertEquals(4, c.clientConnections());
        // An empty properties file means the same.
        ControllerConfig p = ControllerConfig.fromProperties(new Properties());
        assertEquals(c.voters(), p.voters());
        assertEquals(c.dataDir(), p.dataDir());
        assertEquals(c.sessionTimeoutMs(), p.sessionTimeoutMs());
    }

    @Test
    void documentedDefaultsAreTheDefaults() {
        Map<String, String> props = new HashMap<>();
        ControllerConfig.DEFINITION.keys().forEach(k -> props.put(k.name(), formattedDefault(k)));
        ControllerConfig fromDocs = ControllerConfig.fromProperties(props);
        ControllerConfig c = ControllerConfig.builder().build();
        assertEquals(c.nodeId(), fromDocs.nodeId());
        assertEquals(c.voters(), fromDocs.voters());
        assertEquals(c.snapshotIntervalEntries(), fromDocs.snapshotIntervalEntries());
        assertEquals(c.requestTimeoutMs(), fromDocs.requestTimeoutMs());
        assertEquals(c.clientConnections(), fromDocs.clientConnections());
    }

    @Test
    void fromPropertiesReadsEveryKey() {
        Properties props = new Properties();
        props.setProperty("node.id", " 3 ");
        props.setProperty("controller.quorum.voters", "1@a:9001, 2@b.example:9002,3@[::1]:9003");
        props.setProperty("metadata.log.dir", "/var/lib/aloft/meta");
        props.setProperty("controller.snapshot.interval.entries", "5000");
        props.setProperty("broker.session.timeout.ms", "12000");
        props.setProperty("broker.heartbeat.interval.ms", "3000");
        props.setProperty("controller.request.timeout.ms", "45000");
        props.setProperty("controller.client.connections", "8");
        props.setProperty("log.dirs", "/elsewhere"); // another component's key: ignored
        ControllerConfig c = ControllerConfig.fromProperties(props);
        assertEquals(3, c.nodeId());
        assertEquals(List.of(new Voter(1, "a", 9001), new Voter(2, "b.example", 9002), new Voter(3, "[::1]", 9003)),
                c.voters());
        assertEquals(new Voter(3, "[::1]", 9003), c.self());
        assertEquals(Path.of("/var/lib/aloft/meta"), c.dataDir());
        assertEquals(5000, c.snapshotIntervalEntries());
        assertEquals(12_000, c.sessionTimeoutMs());
        assertEquals(3_000, c.heartbeatIntervalMs());
        assertEquals(45_000, c.requestTimeoutMs());
        assertEquals(8, c.clientConnections());
    }

    @Test
    void processRoles_kafkasValues_decideWhatRuns() {
        String voters = "1@a:1,2@b:2,3@c:3";
        ControllerConfig unset = ControllerConfig.fromProperties(Map.of("node.id", "1", "controller.quorum.voters", voters));
        assertTrue(unset.runsBroker());
        ControllerConfig both = ControllerConfig.fromProperties(Map.of("node.id", "2", "controller.quorum.voters", voters,
                "process.roles", "broker, controller"));
        assertTrue(both.runsBroker());
        assertEquals(2, both.self().id());
        ControllerConfig controller = ControllerConfig.fromProperties(Map.of("node.id", "3",
                "controller.quorum.voters", voters, "process.roles", "controller"));
        assertTrue(controller.controllerOnly());
        assertEquals(3, controller.self().id());
        ControllerConfig broker = ControllerConfig.fromProperties(Map.of("node.id", "4",
                "controller.quorum.voters", voters, "process.roles", "broker"));
        assertTrue(broker.runsBroker());
        assertNull(broker.self());
    }

    @Test
    void processRoles_inconsistentWithTheVoters_refusedNamingTheKey() {
        String voters = "1@a:1,2@b:2,3@c:3";
        ConfigException notListed = assertThrows(ConfigException.class, () -> ControllerConfig.fromProperties(Map.of(
                "node.id", "4", "controller.quorum.voters", voters, "process.roles", "controller")));
        assertTrue(notListed.getMessage().startsWith("process.roles"), notListed.getMessage());
        assertThrows(ConfigException.class, () -> ControllerConfig.fromProperties(Map.of("node.id", "4",
                "controller.quorum.voters", voters, "process.roles", "broker,controller")));
        ConfigException listed = assertThrows(ConfigException.class, () -> ControllerConfig.fromProperties(Map.of(
                "node.id", "1", "controller.quorum.voters", voters, "process.roles", "broker")));
        assertTrue(listed.getMessage().contains("broker-only"), listed.getMessage());
        ConfigException typo = assertThrows(ConfigException.class, () -> ControllerConfig.fromProperties(Map.of(
                "process.roles", "brokers")));
        assertTrue(typo.getMessage().contains("'brokers' is not a role"), typo.getMessage());
        assertThrows(ConfigException.class, () -> ControllerConfig.fromProperties(Map.of(
                "process.roles", "broker,broker")));
    }

    @Test
    void aNodeOutsideTheVotersIsNotSelf() {
        ControllerConfig c = ControllerConfig.fromProperties(Map.of("node.id", "4",
                "controller.quorum.voters", "1@a:1,2@b:2,3@c:3"));
        assertEquals(4, c.nodeId());
        assertNull(c.self());
    }

    @Test
    void badNumbersNameTheirKey() {
        rejected(Map.of("node.id", "one"), "node.id");
        rejected(Map.of("node.id", "-1"), "node.id");
        rejected(Map.of("node.id", "3000000000"), "node.id");
        // Out of int range on the negative side must not wrap around to a valid id.
        rejected(Map.of("node.id", "-3000000000"), "node.id");
        rejected(Map.of("controller.client.connections", "5000000000"), "controller.client.connections");
        rejected(Map.of("controller.client.connections", "0"), "controller.client.connections");
        rejected(Map.of("controller.client.connections", "65"), "controller.client.connections");
        rejected(Map.of("controller.snapshot.interval.entries", "99"), "controller.snapshot.interval.entries");
        rejected(Map.of("controller.snapshot.interval.entries", "1e6"), "controller.snapshot.interval.entries");
        rejected(Map.of("broker.heartbeat.interval.ms", "0"), "broker.heartbeat.interval.ms");
        rejected(Map.of("controller.request.timeout.ms", "999"), "controller.request.timeout.ms");
        rejected(Map.of("controller.request.timeout.ms", ""), "controller.request.timeout.ms");
        rejected(Map.of("metadata.log.dir", ""), "metadata.log.dir");
    }

    @Test
    void sessionTimeoutMustExceedTheHeartbeatInterval() {
        rejected(Map.of("broker.session.timeout.ms", "2000", "broker.heartbeat.interval.ms", "2000"),
                "broker.session.timeout.ms");
        rejected(Map.of("broker.session.timeout.ms", "1000"), "broker.session.timeout.ms");
        assertEquals(2001, ControllerConfig.fromProperties(Map.of("broker.session.timeout.ms", "2001"))
                .sessionTimeoutMs());
    }

    @Test
    void malformedVotersNameTheKey() {
        List<String> bad = List.of("", " ", "1@host", "x@h:1", "1@h:0", "1@h:65536", "1@h:", "@h:1", "1h:1",
                "1@:1", "-1@h:1", "1@h:1,1@g:2", "1@h:1,,2@g:2", "1@h:port",
                "1@h:1,2@h:2,3@h:3,4@h:4,5@h:5,6@h:6,7@h:7,8@h:8");
        for (String voters : bad) {
            rejected(Map.of("controller.quorum.voters", voters), "controller.quorum.voters");
        }
        // Seven is the most allowed.
        assertEquals(7, ControllerConfig.fromProperties(Map.of("controller.quorum.voters",
                "1@h:1,2@h:2,3@h:3,4@h:4,5@h:5,6@h:6,7@h:7")).voters().size());
    }

    @Test
    void builderValidatesLikeProperties() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> ControllerConfig.builder().nodeId(-2).build());
        assertTrue(e.getMessage().startsWith("node.id: "), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> ControllerConfig.builder().voters(null).build());
        assertTrue(e.getMessage().startsWith("controller.quorum.voters: "), e.getMessage());
    }

    private static <T> String formattedDefault(io.aloft.config.ConfigKey<T> key) {
        return key.format(key.defaultValue());
    }

    private static void rejected(Map<String, String> props, String key) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> ControllerConfig.fromProperties(props), props::toString);
        assertTrue(e.getMessage().startsWith(key + ": "), () -> props + " gave: " + e.getMessage());
    }
}

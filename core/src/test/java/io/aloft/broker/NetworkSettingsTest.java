package io.aloft.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.aloft.broker.network.KafkaServer;
import io.aloft.config.ConfigException;
import java.net.InetAddress;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The network keys of {@link BrokerConfig}: defaults as documented, Kafka's rules, and the overrides syntax. */
class NetworkSettingsTest {
    private static KafkaServer.Settings settings(Map<String, String> props) {
        return BrokerConfig.fromProperties(props).networkSettings();
    }

    @Test
    void defaults_poolIsAQuarterOfTheHeap_shareAQuarterOfThat_kafkaDefaultsOtherwise() {
        KafkaServer.Settings s = settings(Map.of());
        long pool = Runtime.getRuntime().maxMemory() / 4;
        assertEquals(pool, s.queuedMaxRequestBytes());
        assertEquals(pool / 4, s.connectionQueuedMaxRequestBytes());
        assertEquals(104_857_600, s.maxRequestBytes());
        assertEquals(600_000, s.connectionsMaxIdleMs());
        assertEquals(Integer.MAX_VALUE, s.maxConnections());
        assertEquals(Integer.MAX_VALUE, s.maxConnectionsPerIp());
        assertTrue(s.maxConnectionsPerIpOverrides().isEmpty());
    }

    @Test
    void unlimitedPool_meansAnUnlimitedShareUnlessOneIsSet() {
        assertEquals(-1, settings(Map.of("queued.max.request.bytes", "-1")).queuedMaxRequestBytes());
        assertEquals(Long.MAX_VALUE, settings(Map.of("queued.max.request.bytes", "-1"))
                .connectionQueuedMaxRequestBytes());
        assertEquals(1000, settings(Map.of("queued.max.request.bytes", "-1",
                "aloft.connection.queued.max.request.bytes", "1000")).connectionQueuedMaxRequestBytes());
        assertThrows(ConfigException.class, () -> settings(Map.of("queued.max.request.bytes", "0")));
        assertThrows(ConfigException.class, () -> settings(Map.of("connections.max.idle.ms", "-2")));
    }

    @Test
    void overrides_parseHostsAndAddresses() throws Exception {
        KafkaServer.Settings s = settings(Map.of("max.connections.per.ip.overrides",
                " 127.0.0.2:4, localhost:7 ,[::1]:3"));
        assertEquals(4, s.maxConnectionsPerIpOverrides().get(InetAddress.getByName("127.0.0.2")));
        assertEquals(7, s.maxConnectionsPerIpOverrides().get(InetAddress.getByName("localhost")));
        assertEquals(3, s.maxConnectionsPerIpOverrides().get(InetAddress.getByName("::1")));
        assertEquals("127.0.0.2:4,localhost:7,[::1]:3", BrokerConfig.formatOverrides(
                BrokerConfig.parseOverrides("127.0.0.2:4,localhost:7,::1:3")));
    }

    @Test
    void overrides_badEntries_areRefusedNamingTheKey() {
        for (String bad : new String[] {"127.0.0.1", "127.0.0.1:x", "127.0.0.1:-1", "a:1,a:2", ":5"}) {
            ConfigException e = assertThrows(ConfigException.class,
                    () -> settings(Map.of("max.connections.per.ip.overrides", bad)), bad);
            assertTrue(e.getMessage().startsWith("max.connections.per.ip.overrides"), e.getMessage());
        }
    }

    @Test
    void perIpZero_isAllowedOnlyWithOverrides() {
        assertThrows(ConfigException.class, () -> settings(Map.of("max.connections.per.ip", "0")));
        assertEquals(0, settings(Map.of("max.connections.per.ip", "0", "max.connections.per.ip.overrides",
                "127.0.0.1:5")).maxConnectionsPerIp());
    }
}

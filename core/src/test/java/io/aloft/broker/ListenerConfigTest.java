package io.aloft.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.aloft.config.ConfigException;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.security.auth.SecurityProtocol;
import org.junit.jupiter.api.Test;

/** Kafka's listener keys in {@link BrokerConfig}: names, the protocol map, the inter-broker listener. */
class ListenerConfigTest {
    @Test
    void defaultMap_mapsTheProtocolNamesToThemselves_andTheFirstAdvertisedIsInterBroker() {
        BrokerConfig c = BrokerConfig.fromProperties(Map.of("listeners",
                "SSL://127.0.0.1:9093,PLAINTEXT://127.0.0.1:9092", "ssl.keystore.location", "/k.p12"));
        assertEquals(SecurityProtocol.SSL, c.securityProtocol("SSL"));
        assertEquals(SecurityProtocol.PLAINTEXT, c.securityProtocol("PLAINTEXT"));
        assertEquals("SSL", c.interBrokerListener());
        assertEquals(List.of("SSL"), List.copyOf(c.sslConfigs().keySet()));
    }

    @Test
    void namedListeners_takeTheirProtocolFromTheMap_interBrokerByName() {
        BrokerConfig c = BrokerConfig.fromProperties(Map.of(
                "listeners", "INTERNAL://:9092,EXTERNAL://:9093",
                "advertised.listeners", "INTERNAL://b1.internal:9092,EXTERNAL://b1.example.com:9093",
                "listener.security.protocol.map", " INTERNAL:plaintext , EXTERNAL:SSL",
                "inter.broker.listener.name", "EXTERNAL"));
        assertEquals(SecurityProtocol.PLAINTEXT, c.securityProtocol("INTERNAL"));
        assertEquals(SecurityProtocol.SSL, c.securityProtocol("EXTERNAL"));
        assertEquals("EXTERNAL", c.interBrokerListener());
        assertEquals("INTERNAL:PLAINTEXT,EXTERNAL:SSL",
                BrokerConfig.formatProtocolMap(BrokerConfig.parseProtocolMap("INTERNAL:PLAINTEXT,EXTERNAL:SSL")));
    }

    @Test
    void badListenerSettings_areRefusedNamingTheKey() {
        Map<Map<String, String>, String> cases = Map.of(
                Map.of("listeners", "CLIENTS://:9092"), "listener.security.protocol.map",
                Map.of("listeners", "A://:9092", "listener.security.protocol.map", "A:TLS"),
                "listener.security.protocol.map",
                Map.of("listeners", "A://:9092", "listener.security.protocol.map", "A:SSL,A:PLAINTEXT"),
                "listener.security.protocol.map",
                // A SASL listener without its users (and, inter-broker, the broker's own credentials).
                Map.of("listeners", "SASL_PLAINTEXT://:9092"), "listener.name.sasl_plaintext.plain.sasl.jaas.config",
                Map.of("listeners", "BAD NAME://:9092"), "listeners",
                Map.of("listeners", "PLAINTEXT://:9092", "inter.broker.listener.name", "SSL"),
                "inter.broker.listener.name");
        cases.forEach((props, key) -> {
            ConfigException e = assertThrows(ConfigException.class, () -> BrokerConfig.fromProperties(props),
                    props.toString());
            assertEquals(key, e.key(), props + ": " + e.getMessage());
        });
    }

    @Test
    void perListenerKeys_areKnown_aTypoInOneIsReported() {
        assertEquals(List.of(), ServerConfig.unknownKeyWarnings(Map.of(
                "listener.name.external.ssl.keystore.location", "/k", "ssl.truststore.location", "/t")));
        List<String> warnings = ServerConfig.unknownKeyWarnings(Map.of(
                "listener.name.external.ssl.keystroe.location", "/k"));
        assertEquals(1, warnings.size());
        assertTrue(warnings.get(0).contains("'listener.name.external.ssl.keystroe.location'")
                && warnings.get(0).contains("ssl.keystore.location"), warnings.get(0));
    }
}

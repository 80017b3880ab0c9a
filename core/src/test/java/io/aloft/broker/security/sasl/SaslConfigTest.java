package io.aloft.broker.security.sasl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.aloft.broker.BrokerConfig;
import io.aloft.broker.ServerConfig;
import io.aloft.config.ConfigException;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SaslConfigTest {
    private static final String KEY = "listener.name.sasl_plaintext.plain.sasl.jaas.config";
    private static final String JAAS = "org.apache.kafka.common.security.plain.PlainLoginModule required\n"
            + "  username=\"admin\" password=\"admin-secret\"\n  user_alice=\"alice-secret\" user_bob=\"b\\\"o;b\";";

    @Test
    void jaasConfig_parsesModuleFlagAndQuotedOptions() {
        JaasConfig c = JaasConfig.parse(JAAS);
        assertEquals(PlainCredentials.LOGIN_MODULE, c.loginModule());
        assertEquals("required", c.flag());
        assertEquals("b\"o;b", c.options().get("user_bob"));
        assertEquals("admin", c.options().get("username"));
    }

    @Test
    void jaasConfig_badSyntax_refusedWithoutEchoingValues() {
        for (String bad : List.of("", "x.Module", "x.Module maybe;", "x.Module required user_a=\"secret1",
                "x.Module required user_a=\"secret2\"", "x.Module required user_a;", "a required; b required;")) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> JaasConfig.parse(bad),
                    bad);
            assertFalse(e.getMessage().contains("secret"), e.getMessage());
        }
    }

    @Test
    void plainCredentials_checkUsersOnly() {
        PlainCredentials users = PlainCredentials.fromJaasConfig(KEY, JAAS);
        assertTrue(users.check("alice", "alice-secret"));
        assertTrue(users.check("bob", "b\"o;b"));
        assertFalse(users.check("alice", "alice-secreT"));
        assertFalse(users.check("alice", ""));
        assertFalse(users.check("mallory", "alice-secret"));
        // username/password are the broker's own client credentials in Kafka, not a user.
        assertFalse(users.check("admin", "admin-secret"));
    }

    @Test
    void forListener_readsPrefixedKeys() {
        SaslListenerSettings s = SaslConfig.forListener(Map.of(KEY, JAAS,
                "connection.failed.authentication.delay.ms", "250"), "SASL_PLAINTEXT");
        assertEquals(List.of("PLAIN"), s.mechanisms());
        assertEquals(250, s.failedAuthenticationDelayMs());
        assertTrue(s.plainUsers().check("alice", "alice-secret"));
    }

    @Test
    void forListener_reauthMs_perListenerOverridesGlobal() {
        assertEquals(0, SaslConfig.forListener(Map.of(KEY, JAAS), "SASL_PLAINTEXT").maxReauthMs());
        assertEquals(5000, SaslConfig.forListener(Map.of(KEY, JAAS, "connections.max.reauth.ms", "9000",
                "listener.name.sasl_plaintext.connections.max.reauth.ms", "5000"), "SASL_PLAINTEXT").maxReauthMs());
        ConfigException e = assertThrows(ConfigException.class, () -> SaslConfig.forListener(Map.of(KEY, JAAS,
                "listener.name.sasl_plaintext.connections.max.reauth.ms", "-5"), "SASL_PLAINTEXT"));
        assertTrue(e.getMessage().startsWith("listener.name.sasl_plaintext.connections.max.reauth.ms"));
    }

    @Test
    void forListener_missingJaasConfig_namesTheKey() {
        ConfigException e = assertThrows(ConfigException.class, () -> SaslConfig.forListener(
                Map.of("sasl.jaas.config", JAAS), "SASL_PLAINTEXT"));
        assertTrue(e.getMessage().startsWith(KEY), e.getMessage());
    }

    @Test
    void forListener_unsupportedMechanism_refused() {
        ConfigException e = assertThrows(ConfigException.class, () -> SaslConfig.forListener(
                Map.of(KEY, JAAS, "listener.name.sasl_plaintext.sasl.enabled.mechanisms", "PLAIN,GSSAPI"),
                "SASL_PLAINTEXT"));
        assertTrue(e.getMessage().startsWith("listener.name.sasl_plaintext.sasl.enabled.mechanisms"),
                e.getMessage());
        assertThrows(ConfigException.class, () -> SaslConfig.forListener(
                Map.of(KEY, JAAS, "sasl.enabled.mechanisms", "OAUTHBEARER"), "SASL_PLAINTEXT"));
    }

    @Test
    void forListener_scramOnly_needsNoJaasConfig() {
        SaslListenerSettings s = SaslConfig.forListener(Map.of("sasl.enabled.mechanisms",
                "SCRAM-SHA-512, SCRAM-SHA-256"), "SASL_PLAINTEXT");
        assertEquals(List.of("SCRAM-SHA-512", "SCRAM-SHA-256"), s.mechanisms());
        assertEquals(null, s.plainUsers());
    }

    @Test
    void forListener_otherLoginModule_refused() {
        assertThrows(ConfigException.class, () -> SaslConfig.forListener(Map.of(KEY,
                "org.apache.kafka.common.security.scram.ScramLoginModule required;"), "SASL_PLAINTEXT"));
    }

    @Test
    void saslInterBrokerListener_withoutTheBrokersOwnCredentials_refused() {
        // The first listener is the inter-broker one: its JAAS key must also hold the credentials the
        // broker logs in to the others with (username, password), besides its users.
        String usersOnly = "org.apache.kafka.common.security.plain.PlainLoginModule required user_alice=\"a\";";
        ConfigException e = assertThrows(ConfigException.class, () -> BrokerConfig.fromProperties(Map.of(
                "listeners", "SASL_PLAINTEXT://127.0.0.1:0,PLAINTEXT://127.0.0.1:0", KEY, usersOnly)));
        assertTrue(e.getMessage().startsWith(KEY), e.getMessage());
        assertEquals("PLAIN", BrokerConfig.fromProperties(Map.of("listeners",
                "SASL_PLAINTEXT://127.0.0.1:0,PLAINTEXT://127.0.0.1:0", KEY, JAAS)).interBrokerSecurity()
                .saslMechanism());
        BrokerConfig config = BrokerConfig.fromProperties(Map.of("listeners",
                "PLAINTEXT://127.0.0.1:0,SASL_PLAINTEXT://127.0.0.1:0", KEY, JAAS));
        assertEquals(null, config.saslSettings("PLAINTEXT"));
        assertEquals(List.of("PLAIN"), config.saslSettings("SASL_PLAINTEXT").mechanisms());
        ConfigException named = assertThrows(ConfigException.class, () -> BrokerConfig.fromProperties(Map.of(
                "listeners", "PLAINTEXT://127.0.0.1:0,SASL_PLAINTEXT://127.0.0.1:0", KEY, usersOnly,
                "inter.broker.listener.name", "SASL_PLAINTEXT")));
        assertTrue(named.getMessage().startsWith(KEY), named.getMessage());
        // A SASL listener without users cannot start.
        assertThrows(ConfigException.class, () -> BrokerConfig.fromProperties(Map.of(
                "listeners", "PLAINTEXT://127.0.0.1:0,SASL_PLAINTEXT://127.0.0.1:0")));
    }

    @Test
    void unknownKeyWarnings_skipPerListenerSaslKeys() {
        assertEquals(List.of(), ServerConfig.unknownKeyWarnings(Map.of(KEY, JAAS,
                "listener.name.sasl_plaintext.sasl.enabled.mechanisms", "PLAIN")));
        assertEquals(1, ServerConfig.unknownKeyWarnings(Map.of("listener.name.x.unknown", "1")).size());
    }
}

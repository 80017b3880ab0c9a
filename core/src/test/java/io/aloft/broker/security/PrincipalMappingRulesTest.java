package io.aloft.broker.security;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.aloft.config.ConfigException;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Kafka's ssl.principal.mapping.rules syntax and semantics (the examples of Kafka's documentation). */
class PrincipalMappingRulesTest {
    private static final String DN = "CN=Kafka-Server1,OU=ServiceUsers,O=Org,C=US";

    @Test
    void default_isTheWholeDn() {
        assertEquals(DN, PrincipalMappingRules.DEFAULT.name(DN));
        assertEquals(DN, PrincipalMappingRules.parse("DEFAULT").name(DN));
    }

    @Test
    void rule_replacesTheWholeMatch_withGroups_andLowerOrUpperCases() {
        assertEquals("Kafka-Server1", PrincipalMappingRules.parse("RULE:^CN=(.*?),OU=ServiceUsers.*$/$1/").name(DN));
        assertEquals("kafka-server1", PrincipalMappingRules.parse("RULE:^CN=(.*?),OU=ServiceUsers.*$/$1/L").name(DN));
        assertEquals("KAFKA-SERVER1", PrincipalMappingRules.parse("RULE:^CN=(.*?),OU=ServiceUsers.*$/$1/U").name(DN));
        assertEquals("Kafka-Server1@Org", PrincipalMappingRules.parse(
                "RULE:^CN=(.*?),OU=(.*?),O=(.*?),C=(.*?)$/$1@$3/").name(DN));
    }

    @Test
    void rules_areTriedInOrder_firstThatMatchesWins_commasInsidePatternsBelongToThem() {
        PrincipalMappingRules rules = PrincipalMappingRules.parse(
                "RULE:^CN=(.*?),OU=Admins,.*$/admin-$1/, RULE:^CN=([^,]*),.*$/$1/L,\nDEFAULT");
        assertEquals("admin-bob", rules.name("CN=bob,OU=Admins,O=Org"));
        assertEquals("kafka-server1", rules.name(DN));
        assertEquals("OU=NoCn", rules.name("OU=NoCn"));
    }

    @Test
    void aDnNoRuleAppliesTo_isRefused() {
        PrincipalMappingRules rules = PrincipalMappingRules.parse("RULE:^CN=(.*?),OU=Admins.*$/$1/");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> rules.name(DN));
        assertTrue(e.getMessage().contains(DN), e.getMessage());
    }

    @Test
    void escapedSlashes_arePartOfPatternAndReplacement() {
        assertEquals("a/b", PrincipalMappingRules.parse("RULE:^CN=a\\/b,.*$/a\\/b/").name("CN=a/b,O=x"));
    }

    @Test
    void badRules_areRefusedNamingTheKey() {
        for (String bad : new String[] {"RULE:^CN=(.*)/$1", "NOPE", "RULE:^CN=(.*/$1/", "DEFAULT,RULE:x/y/Q"}) {
            ConfigException e = assertThrows(ConfigException.class, () -> SslConfig.forListener("SSL",
                    Map.of("ssl.principal.mapping.rules", bad)), bad);
            assertEquals("ssl.principal.mapping.rules", e.key(), bad);
        }
    }

    @Test
    void perListenerKeys_takePrecedence_andErrorsNameTheKeyAsSet() {
        SslConfig c = SslConfig.forListener("EXTERNAL", Map.of("ssl.client.auth", "none",
                "listener.name.external.ssl.client.auth", "required"));
        assertEquals(SslConfig.ClientAuth.REQUIRED, c.clientAuth());
        assertEquals(SslConfig.ClientAuth.NONE, SslConfig.forListener("OTHER", Map.of("ssl.client.auth", "none",
                "listener.name.external.ssl.client.auth", "required")).clientAuth());
        ConfigException e = assertThrows(ConfigException.class, () -> SslConfig.forListener("EXTERNAL",
                Map.of("listener.name.external.ssl.client.auth", "maybe")));
        assertEquals("listener.name.external.ssl.client.auth", e.key());
    }
}

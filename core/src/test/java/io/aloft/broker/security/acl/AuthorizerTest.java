package io.aloft.broker.security.acl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.aloft.broker.security.Principal;
import io.aloft.config.ConfigException;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;
import org.junit.jupiter.api.Test;

/** Kafka's ACL rules, one at a time, on fixed bindings; the key encoding; the config keys. */
class AuthorizerTest {
    private static final Principal ALICE = Principal.user("alice");
    private static final Principal BOB = Principal.user("bob");
    private static final AuthorizerConfig CONFIG = new AuthorizerConfig(true, Set.of(Principal.user("admin")), false);

    private static AclBinding acl(ResourceType type, String name, PatternType pattern, String principal, String host,
            AclOperation op, AclPermissionType permission) {
        return new AclBinding(new ResourcePattern(type, name, pattern),
                new AccessControlEntry(principal, host, op, permission));
    }

    private static AclBinding allow(String topic, PatternType pattern, String principal, AclOperation op) {
        return acl(ResourceType.TOPIC, topic, pattern, principal, "*", op, AclPermissionType.ALLOW);
    }

    private static boolean may(Authorizer a, Principal p, AclOperation op, String topic) {
        return a.authorize(p, "10.0.0.1", op, ResourceType.TOPIC, topic);
    }

    @Test
    void authorize_literalPrefixedAndWildcard_matchTheirNames() {
        Authorizer a = Authorizer.of(CONFIG, List.of(
                allow("orders", PatternType.LITERAL, "User:alice", AclOperation.READ),
                allow("logs-", PatternType.PREFIXED, "User:alice", AclOperation.READ),
                allow("*", PatternType.LITERAL, "User:bob", AclOperation.WRITE)));
        assertTrue(may(a, ALICE, AclOperation.READ, "orders"));
        assertFalse(may(a, ALICE, AclOperation.READ, "orders2"));
        assertTrue(may(a, ALICE, AclOperation.READ, "logs-eu"));
        assertTrue(may(a, ALICE, AclOperation.READ, "logs-"));
        assertFalse(may(a, ALICE, AclOperation.READ, "logs"));
        assertTrue(may(a, BOB, AclOperation.WRITE, "anything"));
        assertFalse(may(a, BOB, AclOperation.READ, "anything"));
    }

    @Test
    void authorize_implications_asKafka() {
        for (AclOperation granted : List.of(AclOperation.READ, AclOperation.WRITE, AclOperation.DELETE,
                AclOperation.ALTER)) {
            Authorizer a = Authorizer.of(CONFIG, List.of(allow("t", PatternType.LITERAL, "User:alice", granted)));
            assertTrue(may(a, ALICE, AclOperation.DESCRIBE, "t"), granted + " implies DESCRIBE");
            assertFalse(may(a, ALICE, AclOperation.DESCRIBE_CONFIGS, "t"),
                    granted + " does not imply DESCRIBE_CONFIGS");
        }
        Authorizer configs = Authorizer.of(CONFIG, List.of(allow("t", PatternType.LITERAL, "User:alice",
                AclOperation.ALTER_CONFIGS)));
        assertTrue(may(configs, ALICE, AclOperation.DESCRIBE_CONFIGS, "t"));
        assertFalse(may(configs, ALICE, AclOperation.DESCRIBE, "t"));
        Authorizer describe = Authorizer.of(CONFIG, List.of(allow("t", PatternType.LITERAL, "User:alice",
                AclOperation.DESCRIBE)));
        assertFalse(may(describe, ALICE, AclOperation.READ, "t"), "DESCRIBE implies nothing");
        Authorizer all = Authorizer.of(CONFIG, List.of(allow("t", PatternType.LITERAL, "User:alice",
                AclOperation.ALL)));
        for (AclOperation op : List.of(AclOperation.READ, AclOperation.WRITE, AclOperation.CREATE,
                AclOperation.DELETE, AclOperation.ALTER, AclOperation.DESCRIBE, AclOperation.DESCRIBE_CONFIGS,
                AclOperation.ALTER_CONFIGS)) {
            assertTrue(may(all, ALICE, op, "t"), "ALL allows " + op);
        }
    }

    @Test
    void authorize_denyBeatsAllow_andDenyImpliesNothing() {
        Authorizer a = Authorizer.of(CONFIG, List.of(
                allow("*", PatternType.LITERAL, "User:alice", AclOperation.ALL),
                acl(ResourceType.TOPIC, "secret-", PatternType.PREFIXED, "User:alice", "*", AclOperation.READ,
                        AclPermissionType.DENY)));
        assertFalse(may(a, ALICE, AclOperation.READ, "secret-x"));
        assertTrue(may(a, ALICE, AclOperation.DESCRIBE, "secret-x"), "a DENY of READ does not deny DESCRIBE");
        assertTrue(may(a, ALICE, AclOperation.READ, "public"));
        Authorizer denyAll = Authorizer.of(CONFIG, List.of(
                allow("t", PatternType.LITERAL, "User:alice", AclOperation.READ),
                acl(ResourceType.TOPIC, "t", PatternType.LITERAL, "User:*", "*", AclOperation.ALL,
                        AclPermissionType.DENY)));
        assertFalse(may(denyAll, ALICE, AclOperation.READ, "t"), "DENY ALL to User:* denies alice");
    }

    @Test
    void authorize_hostsPrincipalsSuperUsersAndNoAcl() {
        Authorizer a = Authorizer.of(CONFIG, List.of(acl(ResourceType.TOPIC, "t", PatternType.LITERAL, "User:alice",
                "10.0.0.1", AclOperation.READ, AclPermissionType.ALLOW)));
        assertTrue(a.authorize(ALICE, "10.0.0.1", AclOperation.READ, ResourceType.TOPIC, "t"));
        assertFalse(a.authorize(ALICE, "10.0.0.2", AclOperation.READ, ResourceType.TOPIC, "t"));
        assertFalse(a.authorize(BOB, "10.0.0.1", AclOperation.READ, ResourceType.TOPIC, "t"));
        assertTrue(a.authorize(Principal.user("admin"), "1.2.3.4", AclOperation.ALTER, ResourceType.CLUSTER,
                Authorizer.CLUSTER_NAME), "super user");
        assertFalse(may(a, ALICE, AclOperation.READ, "unnamed"), "no ACL: closed by default");
        Authorizer open = Authorizer.of(new AuthorizerConfig(true, Set.of(), true), List.of(
                allow("t", PatternType.LITERAL, "User:alice", AclOperation.READ)));
        assertTrue(may(open, BOB, AclOperation.READ, "unnamed"), "allow.everyone.if.no.acl.found");
        assertFalse(may(open, BOB, AclOperation.READ, "t"), "a resource with ACLs stays closed to others");
    }

    @Test
    void authorizeAny_asKip679() {
        Authorizer a = Authorizer.of(CONFIG, List.of(allow("t", PatternType.LITERAL, "User:alice",
                AclOperation.WRITE)));
        assertTrue(a.authorizeAny(ALICE, "h", AclOperation.WRITE, ResourceType.TOPIC));
        assertFalse(a.authorizeAny(BOB, "h", AclOperation.WRITE, ResourceType.TOPIC));
        Authorizer denied = Authorizer.of(CONFIG, List.of(
                allow("t", PatternType.LITERAL, "User:alice", AclOperation.WRITE),
                acl(ResourceType.TOPIC, "*", PatternType.LITERAL, "User:alice", "*", AclOperation.WRITE,
                        AclPermissionType.DENY)));
        assertFalse(denied.authorizeAny(ALICE, "h", AclOperation.WRITE, ResourceType.TOPIC));
        Authorizer prefixDenied = Authorizer.of(CONFIG, List.of(
                allow("team-a", PatternType.PREFIXED, "User:alice", AclOperation.WRITE),
                acl(ResourceType.TOPIC, "team", PatternType.PREFIXED, "User:alice", "*", AclOperation.WRITE,
                        AclPermissionType.DENY)));
        assertFalse(prefixDenied.authorizeAny(ALICE, "h", AclOperation.WRITE, ResourceType.TOPIC));
    }

    @Test
    void keys_roundTripNamesWithSlashesAndColons() {
        AclBinding b = acl(ResourceType.GROUP, "a/b c%d", PatternType.PREFIXED, "User:CN=x/O=y", "::1",
                AclOperation.READ, AclPermissionType.DENY);
        String key = AclKeys.key(b);
        assertTrue(key.startsWith("security/acl/group/prefixed/"), key);
        assertEquals(9, key.split("/").length, key);
        assertEquals(b, AclKeys.binding(key, AclKeys.VALUE));
        assertThrows(IllegalArgumentException.class, () -> AclKeys.binding(key, new byte[] {2}));
    }

    @Test
    void config_kafkaClassNameOrAloft_othersRefused() {
        assertTrue(AuthorizerConfig.fromProperties(Map.of("authorizer.class.name",
                "org.apache.kafka.metadata.authorizer.StandardAuthorizer")).enabled());
        assertTrue(AuthorizerConfig.fromProperties(Map.of("authorizer.class.name", "aloft")).enabled());
        assertFalse(AuthorizerConfig.fromProperties(Map.of()).enabled());
        assertThrows(ConfigException.class, () -> AuthorizerConfig.fromProperties(Map.of("authorizer.class.name",
                "kafka.security.authorizer.AclAuthorizer")));
        assertEquals(Set.of(Principal.user("admin"), Principal.ANONYMOUS), AuthorizerConfig.fromProperties(Map.of(
                "super.users", "User:admin; User:ANONYMOUS")).superUsers());
        assertThrows(ConfigException.class, () -> AuthorizerConfig.fromProperties(Map.of("super.users", "admin")));
    }
}

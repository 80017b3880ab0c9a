package io.aloft.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.aloft.broker.security.acl.AuthorizerConfig;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.acl.AccessControlEntryFilter;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclBindingFilter;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.config.SaslConfigs;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePatternFilter;
import org.apache.kafka.common.resource.ResourceType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Apache Kafka's kafka-acls.sh (AclCommand) against an Aloft broker with ACLs on: --add, --list and
 * --remove with literal and prefixed patterns, and the --producer / --consumer conveniences, each
 * checked through describeAcls and by what a SASL user may then do. The tool runs on the PLAINTEXT
 * listener as User:ANONYMOUS, a super user here (the inter-broker listener's principal).
 */
class AclsCliTest {
    private static final String ACL_COMMAND = "org.apache.kafka.tools.AclCommand";
    private static final String JAAS = "org.apache.kafka.common.security.plain.PlainLoginModule required "
            + "user_alice=\"alice-secret\";";

    @RegisterExtension
    static final KafkaCli.WithBroker cli = new KafkaCli.WithBroker(Map.of(
            "listeners", "PLAINTEXT://127.0.0.1:0,SASL_PLAINTEXT://127.0.0.1:0",
            "listener.name.sasl_plaintext.plain.sasl.jaas.config", JAAS,
            "authorizer.class.name", AuthorizerConfig.KAFKA_STANDARD_AUTHORIZER,
            "super.users", "User:ANONYMOUS"));

    private static KafkaCli.Result acls(String... args) throws Exception {
        KafkaCli.Result r = cli.runOnBroker(ACL_COMMAND, args);
        assertEquals(0, r.exitCode(), r.toString());
        return r;
    }

    private static Set<String> bindings(String principal) throws Exception {
        Collection<AclBinding> all = cli.admin().describeAcls(new AclBindingFilter(ResourcePatternFilter.ANY,
                new AccessControlEntryFilter(principal, null, AclOperation.ANY, AclPermissionType.ANY)))
                .values().get(30, TimeUnit.SECONDS);
        return all.stream().map(b -> b.pattern().resourceType() + ":" + b.pattern().patternType() + ":"
                + b.pattern().name() + ":" + b.entry().operation() + ":" + b.entry().permissionType())
                .collect(Collectors.toSet());
    }

    private static Admin alice() {
        Properties p = new Properties();
        p.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG,
                "127.0.0.1:" + cli.broker().broker().port("SASL_PLAINTEXT"));
        p.put(CommonClientConfigs.SECURITY_PROTOCOL_CONFIG, "SASL_PLAINTEXT");
        p.put(SaslConfigs.SASL_MECHANISM, "PLAIN");
        p.put(SaslConfigs.SASL_JAAS_CONFIG, "org.apache.kafka.common.security.plain.PlainLoginModule required "
                + "username=\"alice\" password=\"alice-secret\";");
        p.put(CommonClientConfigs.REQUEST_TIMEOUT_MS_CONFIG, "20000");
        p.put(CommonClientConfigs.DEFAULT_API_TIMEOUT_MS_CONFIG, "20000");
        return Admin.create(p);
    }

    @Test
    void addListRemove_prefixedTopicRead_grantsAndRevokesDescribe() throws Exception {
        cli.admin().createTopics(List.of(new NewTopic("orders-eu", 1, (short) 1))).all().get(30, TimeUnit.SECONDS);
        try (Admin alice = alice()) {
            ExecutionException refused = assertThrows(ExecutionException.class, () -> alice.describeTopics(
                    List.of("orders-eu")).allTopicNames().get(30, TimeUnit.SECONDS));
            assertInstanceOf(TopicAuthorizationException.class, refused.getCause());

            acls("--add", "--allow-principal", "User:alice", "--operation", "Read", "--topic", "orders-",
                    "--resource-pattern-type", "prefixed");
            assertEquals(Set.of("TOPIC:PREFIXED:orders-:READ:ALLOW"), bindings("User:alice"));
            KafkaCli.Result listed = acls("--list", "--topic", "orders-", "--resource-pattern-type", "prefixed");
            assertTrue(listed.out().contains("User:alice") && listed.out().contains("READ")
                    && listed.out().contains("PREFIXED"), listed.toString());
            // READ implies DESCRIBE: alice now sees the topic.
            assertEquals(Set.of("orders-eu"), alice.describeTopics(List.of("orders-eu")).allTopicNames()
                    .get(30, TimeUnit.SECONDS).keySet());
            // --list by topic name with the MATCH pattern type finds the prefixed binding.
            KafkaCli.Result matched = acls("--list", "--topic", "orders-eu", "--resource-pattern-type", "match");
            assertTrue(matched.out().contains("User:alice"), matched.toString());

            acls("--remove", "--force", "--allow-principal", "User:alice", "--operation", "Read", "--topic", "orders-",
                    "--resource-pattern-type", "prefixed");
            assertEquals(Set.of(), bindings("User:alice"));
            refused = assertThrows(ExecutionException.class, () -> alice.describeTopics(List.of("orders-eu"))
                    .allTopicNames().get(30, TimeUnit.SECONDS));
            assertInstanceOf(TopicAuthorizationException.class, refused.getCause());
        }
    }

    @Test
    void producerAndConsumerConveniences_addKafkasBindings() throws Exception {
        acls("--add", "--allow-principal", "User:pat", "--producer", "--topic", "t1", "--transactional-id", "tx1");
        assertEquals(Set.of("TOPIC:LITERAL:t1:WRITE:ALLOW", "TOPIC:LITERAL:t1:DESCRIBE:ALLOW",
                "TOPIC:LITERAL:t1:CREATE:ALLOW", "TRANSACTIONAL_ID:LITERAL:tx1:WRITE:ALLOW",
                "TRANSACTIONAL_ID:LITERAL:tx1:DESCRIBE:ALLOW"), bindings("User:pat"));
        acls("--add", "--allow-principal", "User:cora", "--consumer", "--topic", "t1", "--group", "g1");
        assertEquals(Set.of("TOPIC:LITERAL:t1:READ:ALLOW", "TOPIC:LITERAL:t1:DESCRIBE:ALLOW",
                "GROUP:LITERAL:g1:READ:ALLOW"), bindings("User:cora"));
        acls("--remove", "--force", "--topic", "t1");
        assertEquals(Set.of("TRANSACTIONAL_ID:LITERAL:tx1:WRITE:ALLOW", "TRANSACTIONAL_ID:LITERAL:tx1:DESCRIBE:ALLOW"),
                bindings("User:pat"));
        assertEquals(Set.of("GROUP:LITERAL:g1:READ:ALLOW"), bindings("User:cora"));
    }
}

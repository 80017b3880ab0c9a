package io.aloft.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.quota.ClientQuotaEntity;
import org.apache.kafka.common.quota.ClientQuotaFilter;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Client quotas with Kafka 4.3.1's own {@code kafka-configs --entity-type users|clients} (issue 20):
 * set for a name and for the default, shown by describe, removed with --delete-config, and a bad
 * key refused with the broker's reason; the Admin client reads back what the tool set.
 */
class ClientQuotasCliTest {
    private static final String CONFIGS = "kafka.admin.ConfigCommand";

    @TempDir
    static Path dir;
    static TestBroker broker;
    static KafkaCli cli;

    @BeforeAll
    static void start() throws Exception {
        broker = new TestBroker(dir.resolve("broker"));
        cli = new KafkaCli(dir.resolve("cli"));
    }

    @AfterAll
    static void stop() {
        if (broker != null) {
            broker.close();
        }
    }

    private static KafkaCli.Result configs(String... args) throws Exception {
        List<String> all = new ArrayList<>(List.of("--bootstrap-server", broker.bootstrap()));
        all.addAll(List.of(args));
        return cli.run(CONFIGS, all.toArray(String[]::new));
    }

    private static Map<ClientQuotaEntity, Map<String, Double>> stored() throws Exception {
        try (Admin admin = Admin.create(broker.clientProps())) {
            return admin.describeClientQuotas(ClientQuotaFilter.all()).entities().get(30, TimeUnit.SECONDS);
        }
    }

    @Test
    void configCommand_clients_setDescribeDelete() throws Exception {
        KafkaCli.Result set = configs("--alter", "--entity-type", "clients", "--entity-name", "app-1",
                "--add-config", "producer_byte_rate=1048576,consumer_byte_rate=2097152,request_percentage=50");
        assertEquals(0, set.exitCode(), set.toString());
        assertTrue(set.out().contains("Completed updating config for client app-1."), set.toString());
        KafkaCli.Result described = configs("--describe", "--entity-type", "clients", "--entity-name", "app-1");
        assertEquals(0, described.exitCode(), described.toString());
        assertTrue(described.out().contains("producer_byte_rate=1048576.0"), described.toString());
        assertTrue(described.out().contains("consumer_byte_rate=2097152.0"), described.toString());
        assertTrue(described.out().contains("request_percentage=50.0"), described.toString());
        assertEquals(Map.of("producer_byte_rate", 1048576.0, "consumer_byte_rate", 2097152.0, "request_percentage",
                50.0), stored().get(new ClientQuotaEntity(Map.of(ClientQuotaEntity.CLIENT_ID, "app-1"))));

        KafkaCli.Result deleted = configs("--alter", "--entity-type", "clients", "--entity-name", "app-1",
                "--delete-config", "request_percentage");
        assertEquals(0, deleted.exitCode(), deleted.toString());
        assertEquals(Map.of("producer_byte_rate", 1048576.0, "consumer_byte_rate", 2097152.0),
                stored().get(new ClientQuotaEntity(Map.of(ClientQuotaEntity.CLIENT_ID, "app-1"))));
    }

    @Test
    void configCommand_usersDefault_andUserWithClient() throws Exception {
        KafkaCli.Result set = configs("--alter", "--entity-type", "users", "--entity-default",
                "--add-config", "consumer_byte_rate=4096");
        assertEquals(0, set.exitCode(), set.toString());
        KafkaCli.Result pair = configs("--alter", "--entity-type", "users", "--entity-name", "alice",
                "--entity-type", "clients", "--entity-name", "app-2", "--add-config", "producer_byte_rate=1024");
        assertEquals(0, pair.exitCode(), pair.toString());
        Map<ClientQuotaEntity, Map<String, Double>> stored = stored();
        java.util.HashMap<String, String> defaultUser = new java.util.HashMap<>();
        defaultUser.put(ClientQuotaEntity.USER, null);
        assertEquals(Map.of("consumer_byte_rate", 4096.0), stored.get(new ClientQuotaEntity(defaultUser)));
        assertEquals(Map.of("producer_byte_rate", 1024.0), stored.get(new ClientQuotaEntity(Map.of(
                ClientQuotaEntity.USER, "alice", ClientQuotaEntity.CLIENT_ID, "app-2"))));
        KafkaCli.Result described = configs("--describe", "--entity-type", "users", "--entity-default");
        assertEquals(0, described.exitCode(), described.toString());
        assertTrue(described.out().contains("consumer_byte_rate=4096.0"), described.toString());
    }

    @Test
    void configCommand_badQuota_isRefusedWithTheBrokersReason() throws Exception {
        KafkaCli.Result negative = configs("--alter", "--entity-type", "clients", "--entity-name", "app-3",
                "--add-config", "producer_byte_rate=-5");
        assertTrue(negative.exitCode() != 0, negative.toString());
        assertTrue((negative.out() + negative.err()).contains("Quota producer_byte_rate must be greater than 0"),
                negative.toString());
    }
}

package io.aloft.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.aloft.broker.share.ShareGroupSettings;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.common.config.ConfigResource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Group configs set through one broker with a real Admin reach the other broker (its describe and
 * the share group settings it serves) within a watch round, and a restarted broker has them.
 */
class GroupConfigsBrokersTest {
    private static final ConfigResource GROUP = new ConfigResource(ConfigResource.Type.GROUP, "orders");

    @TempDir
    Path dir;

    @Test
    void groupConfig_setOnOneBroker_seenByTheOther_andKeptOverRestart() throws Exception {
        String objects = dir.resolve("objects").toUri().toString();
        try (TestBroker one = new TestBroker(dir.resolve("b1"), Map.of("aloft.object.storage.url", objects))) {
            TestBroker two = new TestBroker(dir.resolve("b2"), Map.of("node.id", "2", "process.roles", "broker",
                    "controller.quorum.voters", one.props().get("controller.quorum.voters"),
                    "aloft.object.storage.url", objects));
            TestBroker second = two;
            try {
                ShareGroupSettings defaults = two.broker().groupConfigs().settings("orders");
                assertEquals(30_000, defaults.recordLockDurationMs());
                assertEquals(ShareGroupSettings.AutoOffsetReset.LATEST, defaults.autoOffsetReset());
                try (Admin admin = Admin.create(one.clientProps())) {
                    admin.incrementalAlterConfigs(Map.of(GROUP, List.of(
                            set("share.record.lock.duration.ms", "20000"), set("share.delivery.count.limit", "7"),
                            set("share.auto.offset.reset", "by_duration:PT2M"),
                            set("share.isolation.level", "read_committed")))).all().get(30, TimeUnit.SECONDS);
                }
                await(() -> second.broker().groupConfigs().settings("orders").recordLockDurationMs() == 20_000);
                ShareGroupSettings s = two.broker().groupConfigs().settings("orders");
                assertEquals(7, s.deliveryCountLimit());
                assertEquals(new ShareGroupSettings.AutoOffsetReset(ShareGroupSettings.AutoOffsetReset.Kind.BY_DURATION,
                        120_000), s.autoOffsetReset());
                assertTrue(s.readCommitted());
                assertEquals(defaults.partitionMaxRecordLocks(), s.partitionMaxRecordLocks());
                assertEquals(defaults, two.broker().groupConfigs().settings("other"), "other groups keep defaults");
                try (Admin admin = Admin.create(two.clientProps())) {
                    Config c = admin.describeConfigs(List.of(GROUP)).all().get(30, TimeUnit.SECONDS).get(GROUP);
                    assertEquals("20000", c.get("share.record.lock.duration.ms").value());
                    assertEquals(ConfigEntry.ConfigSource.DYNAMIC_GROUP_CONFIG,
                            c.get("share.record.lock.duration.ms").source());
                    assertEquals(ConfigEntry.ConfigSource.DEFAULT_CONFIG,
                            c.get("share.partition.max.record.locks").source());
                    // A delete through the second broker reaches the first.
                    admin.incrementalAlterConfigs(Map.of(GROUP, List.of(new AlterConfigOp(
                            new ConfigEntry("share.delivery.count.limit", null), AlterConfigOp.OpType.DELETE))))
                            .all().get(30, TimeUnit.SECONDS);
                }
                await(() -> one.broker().groupConfigs().settings("orders").deliveryCountLimit() == 5);

                two.close();
                two = two.restart();
                TestBroker restarted = two;
                await(() -> restarted.broker().groupConfigs().settings("orders").recordLockDurationMs() == 20_000);
                assertEquals(5, restarted.broker().groupConfigs().settings("orders").deliveryCountLimit());
                assertTrue(restarted.broker().groupConfigs().settings("orders").readCommitted());
            } finally {
                two.close();
            }
        }
    }

    private static AlterConfigOp set(String name, String value) {
        return new AlterConfigOp(new ConfigEntry(name, value), AlterConfigOp.OpType.SET);
    }

    private static void await(BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!condition.getAsBoolean()) {
            assertTrue(System.nanoTime() < deadline, "condition not met within 30 s");
            Thread.sleep(20);
        }
    }
}

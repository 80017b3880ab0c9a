package io.aloft.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Share group configs with Kafka 4.3.1's own {@code kafka-configs --entity-type groups}: add,
 * describe (the group's value, and every served key with {@code --all}), delete, and a bad value or
 * unknown key refused with the broker's reason.
 */
class GroupConfigsCliTest {
    private static final String CONFIGS = "kafka.admin.ConfigCommand";

    @RegisterExtension
    static final KafkaCli.WithBroker cli = new KafkaCli.WithBroker(Map.of());

    private static KafkaCli.Result configs(String... args) throws Exception {
        List<String> all = new ArrayList<>(List.of("--entity-type", "groups", "--entity-name", "cli-share-group"));
        all.addAll(List.of(args));
        return cli.runOnBroker(CONFIGS, all.toArray(String[]::new));
    }

    @Test
    void configCommand_groups_addDescribeDelete() throws Exception {
        KafkaCli.Result set = configs("--alter", "--add-config",
                "share.record.lock.duration.ms=20000,share.auto.offset.reset=earliest");
        assertEquals(0, set.exitCode(), set.toString());
        assertEquals(20_000, cli.broker().broker().groupConfigs().settings("cli-share-group").recordLockDurationMs());

        KafkaCli.Result described = configs("--describe");
        assertEquals(0, described.exitCode(), described.toString());
        assertTrue(described.out().contains("share.record.lock.duration.ms=20000"), described.toString());
        assertTrue(described.out().contains("share.auto.offset.reset=earliest"), described.toString());
        assertFalse(described.out().contains("share.delivery.count.limit"), "only the group's own values: "
                + described);
        KafkaCli.Result all = configs("--describe", "--all");
        assertEquals(0, all.exitCode(), all.toString());
        assertTrue(all.out().contains("share.delivery.count.limit=5"), all.toString());
        assertTrue(all.out().contains("share.isolation.level=read_uncommitted"), all.toString());

        KafkaCli.Result deleted = configs("--alter", "--delete-config", "share.record.lock.duration.ms");
        assertEquals(0, deleted.exitCode(), deleted.toString());
        assertEquals(30_000, cli.broker().broker().groupConfigs().settings("cli-share-group").recordLockDurationMs());
        KafkaCli.Result after = configs("--describe");
        assertFalse(after.out().contains("share.record.lock.duration.ms"), after.toString());

        KafkaCli.Result bad = configs("--alter", "--add-config", "share.delivery.count.limit=11");
        assertTrue(bad.exitCode() != 0, bad.toString());
        assertTrue((bad.out() + bad.err()).contains(
                "share.delivery.count.limit must be less than or equal to group.share.max.delivery.count.limit"),
                bad.toString());
        KafkaCli.Result unknown = configs("--alter", "--add-config", "share.no.such.key=1");
        assertTrue(unknown.exitCode() != 0, unknown.toString());
        assertTrue((unknown.out() + unknown.err()).contains("Unknown group config name: share.no.such.key"),
                unknown.toString());
    }
}

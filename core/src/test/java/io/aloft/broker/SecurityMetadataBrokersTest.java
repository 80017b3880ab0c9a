package io.aloft.broker;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.aloft.broker.security.SecurityMetadata;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Security entries written through one broker reach another broker's view by the change feed, and
 * a restarted broker gets them back from the controller's image.
 */
class SecurityMetadataBrokersTest {
    @TempDir
    Path dir;

    @Test
    void aChangeOnOneBrokerReachesTheOther_andARestartedBrokerHasThemAll() throws Exception {
        String objects = dir.resolve("objects").toUri().toString();
        try (TestBroker one = new TestBroker(dir.resolve("b1"), Map.of("aloft.object.storage.url", objects))) {
            Map<String, String> secondProps = Map.of("node.id", "2", "process.roles", "broker",
                    "controller.quorum.voters", one.props().get("controller.quorum.voters"),
                    "aloft.object.storage.url", objects);
            TestBroker two = new TestBroker(dir.resolve("b2"), secondProps);
            try {
                SecurityMetadata writer = one.broker().security();
                SecurityMetadata reader = two.broker().security();
                List<Set<String>> seen = new ArrayList<>();
                reader.subscribe("security/acl/", view -> seen.add(Set.copyOf(view.keySet())));

                writer.put("security/acl/topic/a", new byte[] {1}).get(30, TimeUnit.SECONDS);
                writer.put("security/quota/u", new byte[] {2}).get(30, TimeUnit.SECONDS);
                // Read your writes on the writing broker.
                assertArrayEquals(new byte[] {1}, writer.entries("security/acl/").get("security/acl/topic/a"));
                await(() -> reader.entries("security/").size() == 2);
                assertArrayEquals(new byte[] {2}, reader.entries("security/quota/").get("security/quota/u"));
                await(() -> seen.contains(Set.of("security/acl/topic/a")));
                int calls = seen.size();

                writer.delete("security/acl/topic/a").get(30, TimeUnit.SECONDS);
                await(() -> reader.entries("security/acl/").isEmpty());
                await(() -> seen.get(seen.size() - 1).isEmpty());
                // The quota change did not call the ACL listener: only the put and the delete under its prefix did.
                assertEquals(calls + 1, seen.size(), seen.toString());

                two.close();
                writer.put("security/scram/alice/SCRAM-SHA-256", new byte[] {3}).get(30, TimeUnit.SECONDS);
                two = two.restart();
                SecurityMetadata restarted = two.broker().security();
                await(() -> restarted.entries("security/").size() == 2);
                SortedMap<String, byte[]> all = restarted.entries("security/");
                assertEquals(Set.of("security/quota/u", "security/scram/alice/SCRAM-SHA-256"), all.keySet());
                assertFalse(all.containsKey("security/acl/topic/a"));
            } finally {
                two.close();
            }
        }
    }

    private static void await(BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!condition.getAsBoolean()) {
            assertTrue(System.nanoTime() < deadline, "condition not met within 30 s");
            Thread.sleep(20);
        }
    }
}

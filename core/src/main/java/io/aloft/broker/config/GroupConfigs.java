package io.aloft.broker.config;

import io.aloft.broker.security.SecurityMetadata;
import io.aloft.broker.share.ShareGroupConfig;
import io.aloft.broker.share.ShareGroupSettings;
import io.aloft.broker.share.ShareGroupSettingsSource;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.errors.InvalidConfigurationException;
import org.apache.kafka.common.errors.InvalidRequestException;

/**
 * The configs of groups (Kafka's GROUP config resources; the keys of {@link GroupConfigKeys}), kept
 * by the controller in the cluster's replicated key-value entries that every broker watches
 * ({@link SecurityMetadata}), so a change made on one broker reaches every broker within a watch
 * round and survives restarts, as Kafka's group configs do in its metadata log. Served as
 * {@link ShareGroupSettingsSource}: a group's settings are its configs over the broker defaults.
 *
 * <p><b>Storage:</b> one entry per (group, key), {@code security/group-config/<group>/<key>} with
 * the group id URL-encoded (UTF-8, so it holds no {@code /}) and the value as set, UTF-8; so
 * concurrent changes of different keys never overwrite each other. The entries sit under the
 * {@code security/} prefix only because that is the part of the key-value space the controller
 * sends on the change feed; they are not secret.
 *
 * <p>Thread-safe: the view is an immutable snapshot swapped by the metadata listener (which runs
 * under {@link SecurityMetadata}'s lock); {@link #settings} reads it without locking.
 */
public final class GroupConfigs implements ShareGroupSettingsSource {
    public static final String PREFIX = "security/group-config/";

    /** One operation of an IncrementalAlterConfigs on a group. */
    public record Change(String name, AlterConfigOp.OpType op, String value) {
    }

    private record View(Map<String, Map<String, String>> overrides, Map<String, ShareGroupSettings> settings) {
    }

    private final SecurityMetadata metadata;
    private final GroupConfigKeys keys;
    private final ShareGroupSettings defaults;
    private volatile View view = new View(Map.of(), Map.of());

    public GroupConfigs(SecurityMetadata metadata, ShareGroupConfig broker) {
        this.metadata = metadata;
        this.keys = new GroupConfigKeys(broker);
        this.defaults = broker.brokerDefaults();
        metadata.subscribe(PREFIX, this::use);
    }

    public GroupConfigKeys keys() {
        return keys;
    }

    @Override
    public ShareGroupSettings settings(String groupId) {
        return view.settings().getOrDefault(groupId, defaults);
    }

    /** The group's own values (no defaults), by key name in name order. */
    public SortedMap<String, String> overrides(String groupId) {
        requireName(groupId, "Group name must not be empty");
        return Collections.unmodifiableSortedMap(new TreeMap<>(view.overrides().getOrDefault(groupId, Map.of())));
    }

    /**
     * Checks every change as Kafka does, then (unless {@code validateOnly}) applies them all; the
     * future fails with the Kafka exception to answer (nothing is applied when a change is refused).
     */
    public CompletableFuture<Void> alter(String groupId, List<Change> changes, boolean validateOnly) {
        List<SecurityMetadata.Change> writes = new ArrayList<>();
        try {
            requireName(groupId, "Default group resources are not allowed.");
            for (Change c : changes) {
                switch (c.op()) {
                    case SET -> {
                        if (c.value() == null) {
                            throw new InvalidRequestException("Null value not supported for : " + c.name());
                        }
                        keys.validate(c.name(), c.value());
                        writes.add(SecurityMetadata.Change.put(key(groupId, c.name()),
                                c.value().getBytes(StandardCharsets.UTF_8)));
                    }
                    case DELETE -> {
                        // Deleting a key that is not set (or not served) is a no-op, as in Kafka.
                        if (GroupConfigKeys.declaration(c.name()) != null) {
                            writes.add(SecurityMetadata.Change.delete(key(groupId, c.name())));
                        }
                    }
                    default -> throw new InvalidConfigurationException("Can't " + c.op() + " to key " + c.name()
                            + " because its type is not LIST.");
                }
            }
        } catch (ApiException e) {
            return CompletableFuture.failedFuture(e);
        }
        if (validateOnly || writes.isEmpty()) {
            return CompletableFuture.completedFuture(null);
        }
        return metadata.apply(writes);
    }

    private static void requireName(String groupId, String message) {
        if (groupId == null || groupId.isEmpty()) {
            throw new InvalidRequestException(message);
        }
    }

    static String key(String groupId, String name) {
        return PREFIX + URLEncoder.encode(groupId, StandardCharsets.UTF_8) + "/" + name;
    }

    /** Rebuilds the view from the entries under {@link #PREFIX}; an entry not of {@link #key}'s shape is skipped. */
    private void use(SortedMap<String, byte[]> entries) {
        Map<String, Map<String, String>> overrides = new HashMap<>();
        entries.forEach((k, v) -> {
            String rest = k.substring(PREFIX.length());
            int slash = rest.indexOf('/');
            if (slash <= 0) {
                return;
            }
            String group;
            try {
                group = URLDecoder.decode(rest.substring(0, slash), StandardCharsets.UTF_8);
            } catch (IllegalArgumentException e) {
                return;
            }
            overrides.computeIfAbsent(group, g -> new HashMap<>()).put(rest.substring(slash + 1),
                    new String(v, StandardCharsets.UTF_8));
        });
        Map<String, ShareGroupSettings> settings = new HashMap<>();
        overrides.forEach((group, values) -> settings.put(group, keys.settings(values)));
        overrides.replaceAll((group, values) -> Map.copyOf(values));
        view = new View(Map.copyOf(overrides), Map.copyOf(settings));
    }
}

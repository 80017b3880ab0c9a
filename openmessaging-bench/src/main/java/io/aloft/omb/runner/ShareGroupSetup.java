package io.aloft.omb.runner;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.ShareGroupDescription;
import org.apache.kafka.clients.admin.ShareMemberDescription;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.protocol.ApiKeys;

/**
 * What a share-group run needs of the broker before and while its consumers start: that it serves
 * share groups at all, the group configs, and every consumer in its group with the topics'
 * partitions assigned. Confined to the run's thread; every wait is bounded.
 */
final class ShareGroupSetup {
    /** The APIs a share consumer cannot work without. */
    static final List<ApiKeys> REQUIRED = List.of(ApiKeys.SHARE_GROUP_HEARTBEAT, ApiKeys.SHARE_FETCH,
            ApiKeys.SHARE_ACKNOWLEDGE);
    private static final long DESCRIBE_EVERY_MILLIS = 250;

    /**
     * The share groups of a run: members per group, and the partitions each group reads. Immutable.
     */
    record Groups(Map<String, Integer> members, Map<String, Set<TopicPartition>> partitions) {
        Groups {
            members = Map.copyOf(members);
            partitions = Map.copyOf(partitions);
        }

        /** From the client layout: each consumer plan one member of its group, reading its topics' partitions. */
        static Groups of(ClientLayout layout, List<String> topics, int partitionsPerTopic) {
            Map<String, Integer> members = new LinkedHashMap<>();
            Map<String, Set<TopicPartition>> partitions = new LinkedHashMap<>();
            for (ClientLayout.ConsumerPlan plan : layout.consumers()) {
                members.merge(plan.groupId(), 1, Integer::sum);
                Set<TopicPartition> read = partitions.computeIfAbsent(plan.groupId(), g -> new HashSet<>());
                for (int t : plan.topicIndexes()) {
                    for (int p = 0; p < partitionsPerTopic; p++) {
                        read.add(new TopicPartition(topics.get(t), p));
                    }
                }
            }
            return new Groups(members, partitions);
        }
    }

    private final Admin admin;
    private final Duration timeout;

    ShareGroupSetup(Admin admin, Duration timeout) {
        this.admin = admin;
        this.timeout = timeout;
    }

    /**
     * Fails with a message naming what is missing unless the broker's ApiVersions lists
     * {@link #REQUIRED}: a run against a broker without share groups stops here, before any topic
     * or client exists, rather than in a consumer's first heartbeat.
     */
    static void requireShareGroups(String bootstrap, Properties client, Duration timeout) throws IOException {
        List<String> missing = missing(ApiVersionsProbe.fetch(bootstrap, client, timeout));
        if (!missing.isEmpty()) {
            throw new UnsupportedOperationException("the broker at " + bootstrap + " does not serve share groups "
                    + "(KIP-932): its ApiVersions lists no " + String.join(", ", missing)
                    + "; it predates share groups or has them off (Kafka: share.version; Aloft: aloft.share.version)");
        }
    }

    /** The {@link #REQUIRED} APIs the answer leaves out, as "Name (key)". */
    static List<String> missing(ApiVersionsResponseData versions) {
        List<String> missing = new ArrayList<>();
        for (ApiKeys key : REQUIRED) {
            if (versions.apiKeys().find(key.id) == null) {
                missing.add(key.name + " (" + key.id + ")");
            }
        }
        return missing;
    }

    /** Sets {@code config} on each group (GROUP config resources, as kafka-configs.sh --entity-type groups). */
    void configure(Collection<String> groups, Properties config) throws Exception {
        if (config.isEmpty()) {
            return;
        }
        List<AlterConfigOp> ops = new ArrayList<>();
        for (String key : config.stringPropertyNames()) {
            ops.add(new AlterConfigOp(new ConfigEntry(key, config.getProperty(key)), AlterConfigOp.OpType.SET));
        }
        for (String group : groups) {
            try {
                admin.incrementalAlterConfigs(Map.of(new ConfigResource(ConfigResource.Type.GROUP, group), ops))
                        .all().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            } catch (ExecutionException e) {
                throw new IllegalStateException("cannot set share group configs " + config + " on group " + group
                        + ": " + e.getCause(), e.getCause());
            }
        }
    }

    /**
     * Waits until each group has its number of members and together they hold every partition of its
     * topics. (With fewer partitions than members, Kafka's assignor gives a partition to several
     * members; which ones is its business, so only the union is checked.) {@code failFast} runs before
     * each look and may throw, say when a consumer already failed.
     */
    void awaitMembers(Groups groups, Runnable failFast) throws InterruptedException, TimeoutException {
        if (groups.members().isEmpty()) {
            return; // a produce-only run
        }
        long deadline = System.nanoTime() + timeout.toNanos();
        String last = "not described yet";
        while (true) {
            failFast.run();
            try {
                Map<String, ShareGroupDescription> described = admin.describeShareGroups(groups.members().keySet())
                        .all().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
                last = unready(described, groups);
                if (last == null) {
                    return;
                }
            } catch (ExecutionException e) {
                last = "describe failed: " + e.getCause();
            }
            if (System.nanoTime() > deadline) {
                throw new TimeoutException("share consumers did not all join within " + timeout.toSeconds() + " s: "
                        + last);
            }
            Thread.sleep(DESCRIBE_EVERY_MILLIS);
        }
    }

    /** Null when every group is complete, else what is still missing. Package-private for tests. */
    static String unready(Map<String, ShareGroupDescription> described, Groups groups) {
        for (Map.Entry<String, Integer> e : groups.members().entrySet()) {
            ShareGroupDescription d = described.get(e.getKey());
            int joined = d == null ? 0 : d.members().size();
            if (joined != e.getValue()) {
                return "group " + e.getKey() + " has " + joined + " of " + e.getValue() + " members";
            }
            Set<TopicPartition> held = new HashSet<>();
            for (ShareMemberDescription m : d.members()) {
                held.addAll(m.assignment().topicPartitions());
            }
            Set<TopicPartition> wanted = new HashSet<>(groups.partitions().getOrDefault(e.getKey(), Set.of()));
            wanted.removeAll(held);
            if (!wanted.isEmpty()) {
                return "group " + e.getKey() + " has no member assigned " + wanted;
            }
        }
        return null;
    }
}

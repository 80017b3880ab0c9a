package io.aloft.broker.handler;

import io.aloft.broker.api.RequestContext;
import io.aloft.broker.log.BatchRecords;
import io.aloft.broker.log.BatchRecordsAccess;
import io.aloft.broker.metadata.MetadataCache;
import io.aloft.broker.security.Principal;
import io.aloft.broker.security.acl.AuthorizerAccess;
import io.aloft.broker.security.acl.AuthorizerConfig;
import io.aloft.broker.share.ShareGroupConfig;
import io.aloft.broker.share.ShareGroupSettings;
import io.aloft.broker.share.ShareGroupSettingsSource;
import io.aloft.broker.share.fetch.FakeSharePartitions;
import io.aloft.broker.share.fetch.ShareSessionCache;
import io.aloft.broker.share.partition.Acquired;
import io.aloft.controller.model.BrokerInfo;
import io.aloft.controller.model.BrokerState;
import io.aloft.controller.model.ClusterImage;
import io.aloft.controller.model.Endpoint;
import io.aloft.controller.model.PartitionInfo;
import io.aloft.controller.model.TopicInfo;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.common.requests.RequestHeader;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;

/**
 * What the share handler tests share: topic "t" (3 partitions: 0 and 1 led by live broker 1 on
 * PLAINTEXT 10.0.0.1:9092 rack r1, 2 by broker 2) and "secret", a fake SharePartitions, a session
 * cache on a settable clock, group settings with a 20 s lock. Not thread-safe (one per test).
 */
final class ShareFixture implements AutoCloseable {
    static final UUID T_ID = UUID.randomUUID();
    static final UUID SECRET_ID = UUID.randomUUID();
    static final Uuid T = new Uuid(T_ID.getMostSignificantBits(), T_ID.getLeastSignificantBits());
    static final Uuid SECRET = new Uuid(SECRET_ID.getMostSignificantBits(), SECRET_ID.getLeastSignificantBits());
    static final TopicIdPartition P0 = new TopicIdPartition(T, 0, "t");
    static final TopicIdPartition P1 = new TopicIdPartition(T, 1, "t");
    static final TopicIdPartition P2 = new TopicIdPartition(T, 2, "t");
    static final int LOCK_MS = 20_000;

    final MetadataCache cache = new MetadataCache();
    final FakeSharePartitions shares = new FakeSharePartitions();
    long nowMs = 1_000;
    final ShareSessionCache sessions = new ShareSessionCache(100, 60_000, () -> nowMs, shares);
    final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
    final ShareGroupSettingsSource settings;

    ShareFixture() {
        BrokerInfo b1 = new BrokerInfo(1, "run-1", 1, List.of(new Endpoint("PLAINTEXT", "10.0.0.1", 9092,
                "PLAINTEXT")), "r1", BrokerState.ACTIVE);
        BrokerInfo b2 = new BrokerInfo(2, "run-2", 2, List.of(new Endpoint("PLAINTEXT", "10.0.0.2", 9092,
                "PLAINTEXT")), null, BrokerState.ACTIVE);
        TopicInfo t = new TopicInfo(T_ID, "t", Map.of(), List.of(new PartitionInfo(0, 1, 4, List.of(1L)),
                new PartitionInfo(1, 1, 4, List.of(2L)), new PartitionInfo(2, 2, 9, List.of(3L))));
        TopicInfo secret = new TopicInfo(SECRET_ID, "secret", Map.of(), List.of(new PartitionInfo(0, 1, 1,
                List.of(4L))));
        cache.onImage(new ClusterImage(1, List.of(b1, b2), List.of(t, secret)));
        ShareGroupSettings defaults = ShareGroupConfig.defaults().brokerDefaults();
        settings = ShareGroupSettingsSource.fixed(new ShareGroupSettings(LOCK_MS, defaults.deliveryCountLimit(),
                defaults.partitionMaxRecordLocks(), defaults.autoOffsetReset(), false, defaults.sessionTimeoutMs(),
                defaults.heartbeatIntervalMs(), true));
    }

    ShareFetchHandler fetchHandler() {
        return new ShareFetchHandler(cache, shares, sessions, settings, timer);
    }

    ShareAcknowledgeHandler acknowledgeHandler() {
        return new ShareAcknowledgeHandler(cache, shares, sessions, settings);
    }

    static RequestContext context(ApiKeys api, short version) {
        return new RequestContext(new RequestHeader(api, version, "client", 7), "PLAINTEXT",
                new InetSocketAddress("127.0.0.1", 40000), "conn-1");
    }

    /**
     * As {@link #context}, with ACLs allowing User:ANONYMOUS READ on group "g" and topic "t" only
     * ({@code groupAllowed} false: not even the group).
     */
    static RequestContext restricted(ApiKeys api, short version, boolean groupAllowed) {
        List<AclBinding> acls = new ArrayList<>();
        acls.add(allow(ResourceType.TOPIC, "t"));
        if (groupAllowed) {
            acls.add(allow(ResourceType.GROUP, "g"));
        }
        return context(api, version).withAuthorizer(AuthorizerAccess.of(new AuthorizerConfig(true, Set.of(), false),
                acls));
    }

    private static AclBinding allow(ResourceType type, String name) {
        return new AclBinding(new ResourcePattern(type, name, PatternType.LITERAL), new AccessControlEntry(
                Principal.ANONYMOUS.toString(), "*", AclOperation.READ, AclPermissionType.ALLOW));
    }

    /** A stored batch of {@code count} records from {@code base}. */
    static ByteBuffer batch(long base, int count) {
        SimpleRecord[] rs = new SimpleRecord[count];
        for (int i = 0; i < count; i++) {
            rs[i] = new SimpleRecord(i, ("k" + i).getBytes(), ("v" + (base + i)).getBytes());
        }
        return MemoryRecords.withRecords(base, Compression.NONE, rs).buffer();
    }

    /** Offsets {@code first..last} acquired, first delivery, in one batch from {@code first}. */
    static Acquired acquired(long first, long last) {
        BatchRecords records = BatchRecordsAccess.of(List.of(batch(first, (int) (last - first + 1))));
        return new Acquired(Errors.NONE, null, records, List.of(new Acquired.AcquiredRange(first, last, (short) 1)),
                LOCK_MS);
    }

    @Override
    public void close() {
        timer.shutdownNow();
    }
}

package io.aloft.broker.quota;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.aloft.broker.api.RequestContext;
import io.aloft.broker.security.ConnectionSecurity;
import io.aloft.broker.security.Principal;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.ApiVersionsRequestData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.ApiVersionsRequest;
import org.apache.kafka.common.requests.ProduceRequest;
import org.apache.kafka.common.requests.RequestHeader;
import org.junit.jupiter.api.Test;

/**
 * What each request is charged, on a hand-driven clock: a produce request's record bytes (taken
 * before its handler may drop them), the handler's network-thread time as a percentage, nothing for
 * exempt APIs or clients without a quota, and the largest throttle of the quotas that apply.
 */
class ClientQuotaThrottleTest {
    private final AtomicLong clock = new AtomicLong(0);
    private final ClientQuotaThrottle throttle = new ClientQuotaThrottle(QuotaConfig.fromProperties(Map.of()),
            clock::get, new SimpleMeterRegistry());

    private void quota(Map<String, String> entity, String key, double value) {
        Map<QuotaEntity, java.util.SortedMap<String, Double>> m = new java.util.HashMap<>(throttle.quotas().entities());
        TreeMap<String, Double> values = new TreeMap<>(m.getOrDefault(QuotaEntity.of(entity), new TreeMap<>()));
        values.put(key, value);
        m.put(QuotaEntity.of(entity), values);
        throttle.use(new ClientQuotas(m));
    }

    private static RequestContext context(ApiKeys key, String clientId, Principal principal) {
        RequestHeader header = new RequestHeader(key, key.latestVersion(), clientId, 1);
        ConnectionSecurity security = ConnectionSecurity.plaintext("PLAINTEXT");
        if (!principal.equals(Principal.ANONYMOUS)) {
            security.authenticated(principal);
        }
        return new RequestContext(header, "PLAINTEXT", new InetSocketAddress("127.0.0.1", 5555), "c1", security);
    }

    private static ProduceRequest produce(int valueBytes) {
        MemoryRecords records = MemoryRecords.withRecords(Compression.NONE, new SimpleRecord(0L, null,
                new byte[valueBytes]));
        ProduceRequestData.TopicProduceDataCollection topics = new ProduceRequestData.TopicProduceDataCollection();
        topics.add(new ProduceRequestData.TopicProduceData().setName("t").setPartitionData(List.of(
                new ProduceRequestData.PartitionProduceData().setIndex(0).setRecords(records))));
        return ProduceRequest.builder(new ProduceRequestData().setAcks((short) -1).setTimeoutMs(1000)
                .setTopicData(topics)).build(ApiKeys.PRODUCE.latestVersion());
    }

    @Test
    void produce_isChargedItsRecordBytes_evenIfTheHandlerDropsThem() {
        quota(Map.of(QuotaEntity.CLIENT_ID, "p"), QuotaType.PRODUCE.key, 1000);
        ProduceRequest request = produce(20_000);
        long bytes = request.data().topicData().iterator().next().partitionData().get(0).records().sizeInBytes();
        var charge = throttle.charge(context(ApiKeys.PRODUCE, "p", Principal.ANONYMOUS), request);
        request.data().topicData().iterator().next().partitionData().get(0).setRecords(null); // as Kafka's clearPartitionRecords
        // bytes over 10 s (the first windows) against 1000 B/s: (bytes/10 - 1000) / 1000 * 10 s.
        assertEquals(Math.round((bytes / 10.0 - 1000) / 1000 * 10_000), charge.throttleMs(null, 0));
        assertEquals(bytes, throttle.rate(QuotaType.PRODUCE, "", "p") * 10, 1e-6);
    }

    @Test
    void requestPercentage_chargesHandlerTime_andExemptsApiVersions() {
        // users/<default>: every user on its own; ANONYMOUS is one.
        java.util.HashMap<String, String> defaultUser = new java.util.HashMap<>();
        defaultUser.put(QuotaEntity.USER, null);
        quota(defaultUser, QuotaType.REQUEST.key, 10);
        AbstractRequest versions = new ApiVersionsRequest(new ApiVersionsRequestData(), (short) 3);
        assertEquals(0, throttle.charge(context(ApiKeys.API_VERSIONS, "x", Principal.ANONYMOUS), versions)
                .throttleMs(null, 5_000_000_000L));
        AbstractRequest request = produce(10);
        // 2 s of one thread over the first 10 s: 20% against 10%: 10 s more.
        int ms = throttle.charge(context(ApiKeys.PRODUCE, "x", Principal.ANONYMOUS), request)
                .throttleMs(null, 2_000_000_000L);
        assertEquals(10_000, ms);
        // Another user has a rate of its own.
        assertEquals(0, throttle.charge(context(ApiKeys.PRODUCE, "x", Principal.user("bob")), request)
                .throttleMs(null, 1_000_000L));
        assertTrue(throttle.rate(QuotaType.REQUEST, "ANONYMOUS", "") > 10);
    }

    @Test
    void noQuota_chargesNothing() {
        quota(Map.of(QuotaEntity.CLIENT_ID, "other"), QuotaType.PRODUCE.key, 1);
        assertEquals(0, throttle.charge(context(ApiKeys.PRODUCE, "p", Principal.ANONYMOUS), produce(100_000))
                .throttleMs(null, 10_000_000_000L));
        assertEquals(0.0, throttle.rate(QuotaType.PRODUCE, "", "p"));
    }
}

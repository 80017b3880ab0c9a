package io.aloft.broker.quota;

import io.aloft.broker.api.RequestContext;
import io.aloft.broker.api.RequestThrottle;
import io.aloft.broker.security.SecurityMetadata;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.record.internal.BaseRecords;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.FetchResponse;
import org.apache.kafka.common.requests.ProduceRequest;

/**
 * Client quotas on this broker: charges every request to the quotas of its (user, client id) and
 * answers the throttle time, the largest of what its quotas ask:
 * <ul>
 *   <li>{@code producer_byte_rate}: the record bytes of each Produce request;
 *   <li>{@code consumer_byte_rate}: the record bytes of each Fetch response;
 *   <li>{@code request_percentage}: the time the request's handler ran on a network thread, as a
 *       percentage of one thread (100 = one whole thread). Handlers here hand their slow work
 *       (WAL, object storage, the controller) to other threads and return, so this measures the
 *       network thread time only; ApiVersions, SASL and inter-broker APIs are exempt, as in Kafka.
 * </ul>
 * Each broker enforces the full quota on its own, as Kafka's brokers do. The quotas come from the
 * controller's security metadata ({@link QuotaCodec#PREFIX}); a change reaches this broker's view
 * at once.
 *
 * <p>Thread-safe: the view is an immutable {@link ClientQuotas} swapped through a volatile field by
 * the metadata watcher; rates are measured by {@link QuotaManager}s.
 */
public final class ClientQuotaThrottle implements RequestThrottle {
    private static final Charge FREE = (response, handlerNanos) -> 0;
    /** Percent of one thread per nanosecond of its time over a second. */
    private static final double PERCENT_PER_NANO = 100.0 / 1_000_000_000L;

    private volatile ClientQuotas quotas = ClientQuotas.EMPTY;
    private final Map<QuotaType, QuotaManager> managers = new EnumMap<>(QuotaType.class);
    private final Map<QuotaType, Timer> throttleTimes = new EnumMap<>(QuotaType.class);
    private final LongSupplier clockMs;

    public ClientQuotaThrottle(QuotaConfig config, LongSupplier clockMs, MeterRegistry registry) {
        this.clockMs = clockMs;
        for (QuotaType t : QuotaType.values()) {
            managers.put(t, new QuotaManager(t, config));
            throttleTimes.put(t, Timer.builder("aloft.quota.throttle.time")
                    .description("Throttle time given to clients over their " + t.key + " quota, per throttled "
                            + "response (Kafka: kafka_server_" + t.tag + "_throttle_time)")
                    .tag("quota", t.tag).register(registry));
        }
    }

    /** Follows the quotas stored in {@code metadata} from now on. */
    public ClientQuotaThrottle follow(SecurityMetadata metadata) {
        metadata.subscribe(QuotaCodec.PREFIX, entries -> use(ClientQuotas.of(entries)));
        return this;
    }

    /** Enforces {@code view} from now on (the metadata watcher's thread; tests). */
    void use(ClientQuotas view) {
        quotas = view;
    }

    /** The view in force now. */
    public ClientQuotas quotas() {
        return quotas;
    }

    @Override
    public Charge charge(RequestContext context, AbstractRequest request) {
        ClientQuotas view = quotas;
        ApiKeys key = request.apiKey();
        if (view.entities().isEmpty() || exempt(key)) {
            return FREE;
        }
        String clientId = context.header().clientId() == null ? "" : context.header().clientId();
        ClientQuotas.Limits limits = view.limits(context.principal().name(), clientId);
        if (limits.produce() == null && limits.fetch() == null && limits.request() == null) {
            return FREE;
        }
        long produceBytes = key == ApiKeys.PRODUCE && limits.produce() != null
                ? produceBytes(((ProduceRequest) request).data()) : 0;
        return (response, handlerNanos) -> {
            long now = clockMs.getAsLong();
            int ms = throttle(QuotaType.REQUEST, limits.request(), handlerNanos * PERCENT_PER_NANO, now);
            if (key == ApiKeys.PRODUCE) {
                ms = Math.max(ms, throttle(QuotaType.PRODUCE, limits.produce(), produceBytes, now));
            } else if (key == ApiKeys.FETCH && response instanceof FetchResponse fetch) {
                ms = Math.max(ms, throttle(QuotaType.FETCH, limits.fetch(), fetchBytes(fetch.data()), now));
            }
            return ms;
        };
    }

    private int throttle(QuotaType type, ClientQuotas.Limit limit, double value, long now) {
        int ms = managers.get(type).recordAndThrottleMs(limit, value, now);
        if (ms > 0) {
            throttleTimes.get(type).record(ms, TimeUnit.MILLISECONDS);
        }
        return ms;
    }

    /** The measured rate of a quota's account (tests): bytes/s, or percent for the request quota. */
    double rate(QuotaType type, String user, String clientId) {
        return managers.get(type).rate(user, clientId, clockMs.getAsLong());
    }

    static boolean exempt(ApiKeys key) {
        return key.clusterAction || key == ApiKeys.API_VERSIONS || key == ApiKeys.SASL_HANDSHAKE
                || key == ApiKeys.SASL_AUTHENTICATE;
    }

    private static long produceBytes(ProduceRequestData data) {
        long bytes = 0;
        for (ProduceRequestData.TopicProduceData t : data.topicData()) {
            for (ProduceRequestData.PartitionProduceData p : t.partitionData()) {
                bytes += size(p.records());
            }
        }
        return bytes;
    }

    private static long fetchBytes(FetchResponseData data) {
        long bytes = 0;
        for (FetchResponseData.FetchableTopicResponse t : data.responses()) {
            for (FetchResponseData.PartitionData p : t.partitions()) {
                bytes += size(p.records());
            }
        }
        return bytes;
    }

    private static long size(BaseRecords records) {
        return records == null ? 0 : records.sizeInBytes();
    }
}

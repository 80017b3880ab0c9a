package io.aloft.broker.handler;

import io.aloft.broker.api.ApiHandler;
import io.aloft.broker.api.RequestContext;
import io.aloft.broker.quota.ClientQuotas;
import io.aloft.broker.quota.QuotaCodec;
import io.aloft.broker.quota.QuotaEntity;
import io.aloft.broker.security.SecurityMetadata;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.errors.InvalidRequestException;
import org.apache.kafka.common.errors.UnsupportedVersionException;
import org.apache.kafka.common.message.DescribeClientQuotasRequestData;
import org.apache.kafka.common.message.DescribeClientQuotasResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.DescribeClientQuotasRequest;
import org.apache.kafka.common.requests.DescribeClientQuotasResponse;

/**
 * DescribeClientQuotas ({@code kafka-configs.sh --describe --entity-type users|clients|ips}): the
 * stored entities that match the filter, with their quotas, from this broker's view of the
 * controller's security metadata (which already holds this broker's own writes). The filter is
 * Kafka's: each component names an entity type and matches an exact name, the default, or any
 * name; with {@code strict} an entity must have no other types. A bad filter is INVALID_REQUEST
 * with Kafka's message.
 *
 * <p>Thread-safe (stateless).
 */
public final class DescribeClientQuotasHandler implements ApiHandler<DescribeClientQuotasRequest> {
    private final SecurityMetadata metadata;

    public DescribeClientQuotasHandler(SecurityMetadata metadata) {
        this.metadata = metadata;
    }

    @Override
    public ApiKeys apiKey() {
        return ApiKeys.DESCRIBE_CLIENT_QUOTAS;
    }

    /** The filter: names to match exactly (null: the default), and types matched whatever their name. */
    private record Filter(Map<String, String> exact, Set<String> anyName, boolean strict) {
        boolean matches(QuotaEntity e) {
            if (strict && e.names().size() != exact.size() + anyName.size()) {
                return false;
            }
            for (Map.Entry<String, String> x : exact.entrySet()) {
                if (!e.has(x.getKey()) || !java.util.Objects.equals(e.name(x.getKey()), x.getValue())) {
                    return false;
                }
            }
            return e.names().keySet().containsAll(anyName);
        }
    }

    @Override
    public CompletableFuture<AbstractResponse> handle(RequestContext context, DescribeClientQuotasRequest request) {
        DescribeClientQuotasResponseData data = new DescribeClientQuotasResponseData();
        try {
            Filter filter = filter(request.data());
            List<DescribeClientQuotasResponseData.EntryData> entries = new ArrayList<>();
            ClientQuotas.of(metadata.entries(QuotaCodec.PREFIX)).entities().forEach((entity, values) -> {
                if (filter.matches(entity) && !values.isEmpty()) {
                    entries.add(entry(entity, values));
                }
            });
            data.setEntries(entries);
        } catch (InvalidRequestException | UnsupportedVersionException e) {
            data.setErrorCode(Errors.forException(e).code()).setErrorMessage(e.getMessage()).setEntries(null);
        }
        return CompletableFuture.completedFuture(new DescribeClientQuotasResponse(data));
    }

    private static Filter filter(DescribeClientQuotasRequestData data) {
        Map<String, String> exact = new HashMap<>();
        Set<String> anyName = new HashSet<>();
        Set<String> seen = new HashSet<>();
        for (DescribeClientQuotasRequestData.ComponentData c : data.components()) {
            String type = c.entityType();
            if (type == null || type.isEmpty()) {
                throw new InvalidRequestException("Invalid empty entity type.");
            }
            if (!seen.add(type)) {
                throw new InvalidRequestException("Entity type " + type + " cannot appear more than once in the "
                        + "filter.");
            }
            if (!type.equals(QuotaEntity.USER) && !type.equals(QuotaEntity.CLIENT_ID) && !type.equals(QuotaEntity.IP)) {
                // Kafka answers UNSUPPORTED_VERSION here (a type a later version might know).
                throw new UnsupportedVersionException("Unsupported entity type " + type);
            }
            switch (c.matchType()) {
                case DescribeClientQuotasRequest.MATCH_TYPE_EXACT -> {
                    if (c.match() == null) {
                        throw new InvalidRequestException("Request specified MATCH_TYPE_EXACT, but set match string "
                                + "to null.");
                    }
                    exact.put(type, c.match());
                }
                case DescribeClientQuotasRequest.MATCH_TYPE_DEFAULT -> {
                    if (c.match() != null) {
                        throw new InvalidRequestException("Request specified MATCH_TYPE_DEFAULT, but also specified "
                                + "a match string.");
                    }
                    exact.put(type, null);
                }
                case DescribeClientQuotasRequest.MATCH_TYPE_SPECIFIED -> {
                    if (c.match() != null) {
                        throw new InvalidRequestException("Request specified MATCH_TYPE_SPECIFIED, but also "
                                + "specified a match string.");
                    }
                    anyName.add(type);
                }
                default -> throw new InvalidRequestException("Unknown match type " + c.matchType());
            }
        }
        if (seen.contains(QuotaEntity.IP) && seen.size() > 1) {
            throw new InvalidRequestException("Invalid entity filter component combination. IP filter component "
                    + "should not be used with user or clientId filter component.");
        }
        return new Filter(exact, anyName, data.strict());
    }

    private static DescribeClientQuotasResponseData.EntryData entry(QuotaEntity entity, SortedMap<String, Double> values) {
        List<DescribeClientQuotasResponseData.EntityData> names = new ArrayList<>();
        entity.names().forEach((type, name) -> names.add(new DescribeClientQuotasResponseData.EntityData()
                .setEntityType(type).setEntityName(name)));
        List<DescribeClientQuotasResponseData.ValueData> vs = new ArrayList<>();
        values.forEach((k, v) -> vs.add(new DescribeClientQuotasResponseData.ValueData().setKey(k).setValue(v)));
        return new DescribeClientQuotasResponseData.EntryData().setEntity(names).setValues(vs);
    }
}

package io.aloft.broker.handler;

import io.aloft.broker.api.ApiHandler;
import io.aloft.broker.api.RequestContext;
import io.aloft.broker.quota.QuotaChecks;
import io.aloft.broker.quota.QuotaCodec;
import io.aloft.broker.quota.QuotaEntity;
import io.aloft.broker.security.SecurityMetadata;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Set;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.errors.InvalidRequestException;
import org.apache.kafka.common.message.AlterClientQuotasRequestData;
import org.apache.kafka.common.message.AlterClientQuotasResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.AlterClientQuotasRequest;
import org.apache.kafka.common.requests.AlterClientQuotasResponse;

/**
 * AlterClientQuotas ({@code kafka-configs.sh --alter --entity-type users|clients|ips}): checks each
 * entry as Kafka's controller does (an entry with an error changes nothing; the others apply), then
 * writes the changed entities to the controller's security metadata in one round, one key per
 * entity (see {@link QuotaCodec}); an entity left with no quota is deleted. validate_only checks
 * and writes nothing. Every broker sees the change within milliseconds.
 *
 * <p>Two concurrent alterations of the same entity read, change and write its values each on its
 * own, so one may undo the other's change to a different key of that entity (Kafka's controller
 * serializes them); alterations of different entities never interfere.
 *
 * <p>Thread-safe (stateless beyond the metadata it writes).
 */
public final class AlterClientQuotasHandler implements ApiHandler<AlterClientQuotasRequest> {
    private final SecurityMetadata metadata;

    public AlterClientQuotasHandler(SecurityMetadata metadata) {
        this.metadata = metadata;
    }

    @Override
    public ApiKeys apiKey() {
        return ApiKeys.ALTER_CLIENT_QUOTAS;
    }

    @Override
    public CompletableFuture<AbstractResponse> handle(RequestContext context, AlterClientQuotasRequest request) {
        AlterClientQuotasRequestData data = request.data();
        List<AlterClientQuotasResponseData.EntryData> results = new ArrayList<>();
        List<AlterClientQuotasResponseData.EntryData> applied = new ArrayList<>();
        Map<String, SortedMap<String, Double>> changed = new HashMap<>();
        // As Kafka reads the request: a type named twice keeps its last name, the answer names the
        // entity so read, and an entity in two entries is one answer, an error, with neither applied.
        List<Map<String, String>> entities = new ArrayList<>();
        Map<Map<String, String>, Integer> times = new HashMap<>();
        for (AlterClientQuotasRequestData.EntryData entry : data.entries()) {
            Map<String, String> components = new HashMap<>();
            for (AlterClientQuotasRequestData.EntityData e : entry.entity()) {
                components.put(e.entityType(), e.entityName());
            }
            entities.add(components);
            times.merge(components, 1, Integer::sum);
        }
        Set<Map<String, String>> answered = new HashSet<>();
        for (int i = 0; i < entities.size(); i++) {
            AlterClientQuotasRequestData.EntryData entry = data.entries().get(i);
            Map<String, String> components = entities.get(i);
            if (!answered.add(components)) {
                continue;
            }
            List<AlterClientQuotasResponseData.EntityData> echo = new ArrayList<>();
            components.forEach((type, name) -> echo.add(new AlterClientQuotasResponseData.EntityData()
                    .setEntityType(type).setEntityName(name)));
            AlterClientQuotasResponseData.EntryData result = new AlterClientQuotasResponseData.EntryData()
                    .setEntity(echo).setErrorCode(Errors.NONE.code()).setErrorMessage(null);
            results.add(result);
            try {
                Set<String> keys = new HashSet<>();
                boolean twice = times.get(components) > 1;
                for (AlterClientQuotasRequestData.OpData op : entry.ops()) {
                    twice |= !keys.add(op.key());
                }
                if (twice) {
                    // Kafka's words for an entity in two entries, or a key changed twice in one.
                    throw new InvalidRequestException("Ignoring duplicate entity ClientQuotaEntity(entries="
                            + components + ")");
                }
                QuotaEntity entity = QuotaChecks.entity(components);
                for (AlterClientQuotasRequestData.OpData op : entry.ops()) {
                    QuotaChecks.check(entity, op.key(), op.value(), op.remove());
                }
                if (!data.validateOnly()) {
                    String key = QuotaCodec.key(entity);
                    SortedMap<String, Double> values = changed.computeIfAbsent(key, this::stored);
                    for (AlterClientQuotasRequestData.OpData op : entry.ops()) {
                        if (op.remove()) {
                            values.remove(op.key());
                        } else {
                            values.put(op.key(), op.value());
                        }
                    }
                    applied.add(result);
                }
            } catch (ApiException e) {
                result.setErrorCode(Errors.forException(e).code()).setErrorMessage(e.getMessage());
            }
        }
        AlterClientQuotasResponse response = new AlterClientQuotasResponse(new AlterClientQuotasResponseData()
                .setEntries(results));
        if (changed.isEmpty()) {
            return CompletableFuture.completedFuture(response);
        }
        List<SecurityMetadata.Change> changes = new ArrayList<>();
        changed.forEach((key, values) -> changes.add(values.isEmpty() ? SecurityMetadata.Change.delete(key)
                : SecurityMetadata.Change.put(key, QuotaCodec.encodeValues(values))));
        return metadata.apply(changes).handle((v, e) -> {
            if (e != null) {
                Errors error = ControllerErrors.toKafka(e);
                String message = ControllerErrors.message(e);
                for (AlterClientQuotasResponseData.EntryData r : applied) {
                    r.setErrorCode(error.code()).setErrorMessage(message);
                }
            }
            return response;
        });
    }

    /** The entity's stored values, as a copy to change. */
    private SortedMap<String, Double> stored(String key) {
        byte[] value = metadata.entries(key).get(key);
        return value == null ? new TreeMap<>() : new TreeMap<>(QuotaCodec.decodeValues(value));
    }
}

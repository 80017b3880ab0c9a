package io.aloft.broker.quota;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.SortedMap;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Every client-quota entity and its values, as stored under {@link QuotaCodec#PREFIX}, and the
 * quota that applies to a (user, client id) by Kafka's precedence, most specific first:
 * <ol>
 *   <li>{@code users/<user>/clients/<client-id>}
 *   <li>{@code users/<user>/clients/<default>}
 *   <li>{@code users/<user>}
 *   <li>{@code users/<default>/clients/<client-id>}
 *   <li>{@code users/<default>/clients/<default>}
 *   <li>{@code users/<default>}
 *   <li>{@code clients/<client-id>}
 *   <li>{@code clients/<default>}
 * </ol>
 * The first entity that sets the quota's key wins, per key (a user may take its produce rate from
 * one entity and its fetch rate from another). Whoever the winning entity names shares one
 * measured rate, as in Kafka: with {@code users/alice}, all of alice's client ids share her rate;
 * with {@code users/<default>}, each user has a rate of their own (see {@link Limit}).
 *
 * <p>The user is the principal's name: {@code ANONYMOUS} on a connection without authentication,
 * which, as in Kafka, is a user like any other ({@code users/ANONYMOUS} applies to it, and so does
 * {@code users/<default>}).
 *
 * <p>Immutable (a resolution cache inside is thread-safe); a new one is built on every change.
 */
public final class ClientQuotas {
    private static final Logger log = LoggerFactory.getLogger(ClientQuotas.class);
    /** Resolutions kept before the cache starts over (client ids are chosen by clients). */
    private static final int MAX_CACHED = 10_000;

    public static final ClientQuotas EMPTY = new ClientQuotas(Map.of());

    /**
     * A quota that applies: its value, and whose measured rate it limits ({@code user} and
     * {@code clientId} are "" where the winning entity has no such type).
     */
    public record Limit(double quota, String user, String clientId) {
    }

    /** The limits of one (user, client id), each null where no entity sets the key. */
    record Limits(Limit produce, Limit fetch, Limit request) {
    }

    private final Map<QuotaEntity, SortedMap<String, Double>> entities;
    private final ConcurrentHashMap<String, Limits> resolved = new ConcurrentHashMap<>();

    ClientQuotas(Map<QuotaEntity, SortedMap<String, Double>> entities) {
        this.entities = Collections.unmodifiableMap(new LinkedHashMap<>(entities));
    }

    /** The view of the stored entries (keys under {@link QuotaCodec#PREFIX}); an undecodable one is skipped. */
    public static ClientQuotas of(SortedMap<String, byte[]> entries) {
        Map<QuotaEntity, SortedMap<String, Double>> m = new LinkedHashMap<>();
        entries.forEach((key, value) -> {
            try {
                m.put(QuotaCodec.entity(key), QuotaCodec.decodeValues(value));
            } catch (IllegalArgumentException e) {
                log.warn("Ignoring the client quota stored under {}: {}", key, e.getMessage());
            }
        });
        return new ClientQuotas(m);
    }

    /** Every entity and its values. */
    public Map<QuotaEntity, SortedMap<String, Double>> entities() {
        return entities;
    }

    Limits limits(String user, String clientId) {
        String cacheKey = user + '\0' + clientId;
        Limits l = resolved.get(cacheKey);
        if (l == null) {
            l = new Limits(resolve(user, clientId, QuotaType.PRODUCE.key), resolve(user, clientId,
                    QuotaType.FETCH.key), resolve(user, clientId, QuotaType.REQUEST.key));
            if (resolved.size() >= MAX_CACHED) {
                resolved.clear();
            }
            resolved.put(cacheKey, l);
        }
        return l;
    }

    /** The limit on {@code key} for this user and client id, or null if none applies. */
    Limit resolve(String user, String clientId, String key) {
        if (entities.isEmpty()) {
            return null;
        }
        // Kafka's order: user and client id, user and default client, user alone; then the same
        // with the default user; then client id alone, default client alone.
        for (int i = 0; i < 8; i++) {
            QuotaEntity e = switch (i) {
                case 0 -> QuotaEntity.of(true, user, true, clientId);
                case 1 -> QuotaEntity.of(true, user, true, null);
                case 2 -> QuotaEntity.of(true, user, false, null);
                case 3 -> QuotaEntity.of(true, null, true, clientId);
                case 4 -> QuotaEntity.of(true, null, true, null);
                case 5 -> QuotaEntity.of(true, null, false, null);
                case 6 -> QuotaEntity.of(false, null, true, clientId);
                default -> QuotaEntity.of(false, null, true, null);
            };
            SortedMap<String, Double> values = entities.get(e);
            Double q = values == null ? null : values.get(key);
            if (q != null) {
                return new Limit(q, e.has(QuotaEntity.USER) ? user : "",
                        e.has(QuotaEntity.CLIENT_ID) ? clientId : "");
            }
        }
        return null;
    }
}

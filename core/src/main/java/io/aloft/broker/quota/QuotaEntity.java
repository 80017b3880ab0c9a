package io.aloft.broker.quota;

import java.util.Collections;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * A client-quota entity as Kafka's {@code ClientQuotaEntity}: one name per entity type
 * ({@value #USER}, {@value #CLIENT_ID}, {@value #IP}), a null name meaning that type's default
 * ({@code --entity-default}), e.g. {@code {user=alice, client-id=null}} is Kafka's
 * {@code /config/users/alice/clients/<default>}. Immutable.
 *
 * @param names entity type to name (null: the default), sorted by type
 */
public record QuotaEntity(SortedMap<String, String> names) {
    public static final String USER = "user";
    public static final String CLIENT_ID = "client-id";
    public static final String IP = "ip";

    public QuotaEntity {
        names = Collections.unmodifiableSortedMap(new TreeMap<>(names));
    }

    /** An entity of a user and/or a client id; {@code hasUser}/{@code hasClient} say which types it has. */
    static QuotaEntity of(boolean hasUser, String user, boolean hasClient, String clientId) {
        TreeMap<String, String> m = new TreeMap<>();
        if (hasUser) {
            m.put(USER, user);
        }
        if (hasClient) {
            m.put(CLIENT_ID, clientId);
        }
        return new QuotaEntity(m);
    }

    public static QuotaEntity of(Map<String, String> names) {
        return new QuotaEntity(new TreeMap<>(names));
    }

    public boolean has(String type) {
        return names.containsKey(type);
    }

    /** The name for {@code type}: null for the default or when the entity has no such type. */
    public String name(String type) {
        return names.get(type);
    }

    @Override
    public String toString() {
        StringBuilder b = new StringBuilder();
        names.forEach((type, name) -> b.append(b.length() == 0 ? "" : ", ").append(type).append('=')
                .append(name == null ? "<default>" : name));
        return "{" + b + "}";
    }
}

package io.aloft.broker.quota;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.HashMap;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/** Kafka's precedence between quota entities, and the stored form of entities and values. */
class ClientQuotasTest {
    private final Map<String, byte[]> stored = new HashMap<>();

    private void set(String user, boolean hasUser, String client, boolean hasClient, String key, double value) {
        QuotaEntity e = QuotaEntity.of(hasUser, user, hasClient, client);
        TreeMap<String, Double> values = new TreeMap<>();
        values.put(key, value);
        stored.put(QuotaCodec.key(e), QuotaCodec.encodeValues(values));
    }

    private ClientQuotas view() {
        return ClientQuotas.of(new TreeMap<>(stored));
    }

    @Test
    void resolve_takesTheMostSpecificEntityThatSetsTheKey_inKafkasOrder() {
        String k = QuotaType.PRODUCE.key;
        set(null, false, null, true, k, 8);             // clients/<default>
        assertEquals(new ClientQuotas.Limit(8, "", "c"), view().resolve("u", "c", k));
        set(null, false, "c", true, k, 7);              // clients/c
        assertEquals(new ClientQuotas.Limit(7, "", "c"), view().resolve("u", "c", k));
        set(null, true, null, false, k, 6);             // users/<default>
        assertEquals(new ClientQuotas.Limit(6, "u", ""), view().resolve("u", "c", k));
        set(null, true, null, true, k, 5);              // users/<default>/clients/<default>
        assertEquals(new ClientQuotas.Limit(5, "u", "c"), view().resolve("u", "c", k));
        set(null, true, "c", true, k, 4);               // users/<default>/clients/c
        assertEquals(new ClientQuotas.Limit(4, "u", "c"), view().resolve("u", "c", k));
        set("u", true, null, false, k, 3);              // users/u
        assertEquals(new ClientQuotas.Limit(3, "u", ""), view().resolve("u", "c", k));
        set("u", true, null, true, k, 2);               // users/u/clients/<default>
        assertEquals(new ClientQuotas.Limit(2, "u", "c"), view().resolve("u", "c", k));
        set("u", true, "c", true, k, 1);                // users/u/clients/c
        assertEquals(new ClientQuotas.Limit(1, "u", "c"), view().resolve("u", "c", k));
        // Another user and client fall back to the defaults.
        assertEquals(new ClientQuotas.Limit(5, "v", "d"), view().resolve("v", "d", k));
        // Per key: nothing sets the fetch rate.
        assertNull(view().resolve("u", "c", QuotaType.FETCH.key));
    }

    @Test
    void resolve_anonymousIsAUserLikeAnyOther() {
        set("ANONYMOUS", true, null, false, QuotaType.FETCH.key, 9);
        assertEquals(new ClientQuotas.Limit(9, "ANONYMOUS", ""), view().limits("ANONYMOUS", "x").fetch());
        assertNull(view().limits("alice", "x").fetch());
    }

    @Test
    void codec_roundTripsNamesThatLookLikeTheSyntax() {
        for (String name : new String[] {"<default>", "a/b", "x y+z", "%3C", "ümlaut", "user"}) {
            QuotaEntity e = QuotaEntity.of(true, name, true, null);
            assertEquals(e, QuotaCodec.entity(QuotaCodec.key(e)), name);
        }
        assertEquals("security/quota/client-id/<default>/user/a%2Fb",
                QuotaCodec.key(QuotaEntity.of(true, "a/b", true, null)));
        SortedMap<String, Double> values = new TreeMap<>(Map.of("producer_byte_rate", 1024.0, "request_percentage",
                12.5));
        assertEquals(values, QuotaCodec.decodeValues(QuotaCodec.encodeValues(values)));
    }

    @Test
    void of_skipsAnUndecodableEntry() {
        set("u", true, null, false, QuotaType.PRODUCE.key, 3);
        stored.put(QuotaCodec.PREFIX + "user/v", new byte[] {9, 0});
        assertEquals(1, view().entities().size());
    }
}

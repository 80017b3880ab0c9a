package io.aloft.stream.object;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ObjectKeysTest {

    @Test
    void key_sameId_isStableAndHasThreeSegments() {
        assertEquals(ObjectKeys.key(42), ObjectKeys.key(42));
        assertTrue(ObjectKeys.key(42).matches("[0-9a-f]{2}/obj/42"), ObjectKeys.key(42));
        assertTrue(ObjectKeys.key(Long.MAX_VALUE).endsWith("/obj/" + Long.MAX_VALUE));
    }

    @Test
    void key_sequentialIds_spreadEvenlyOverAllPrefixes() {
        Map<String, Integer> perPrefix = new HashMap<>();
        for (long id = 0; id < 25_600; id++) {
            perPrefix.merge(ObjectKeys.key(id).substring(0, 2), 1, Integer::sum);
        }
        assertEquals(256, perPrefix.size());
        // 100 expected per prefix; a poor mix of sequential ids would be far off.
        perPrefix.values().forEach(n -> assertTrue(n > 50 && n < 150, perPrefix.toString()));
    }

    @Test
    void key_manyIds_noKeyIsADirectoryOfAnother() {
        Set<String> keys = new HashSet<>();
        Set<String> directories = new HashSet<>();
        for (long id = 0; id < 5_000; id++) {
            String key = ObjectKeys.key(id);
            keys.add(key);
            for (int slash = key.indexOf('/'); slash >= 0; slash = key.indexOf('/', slash + 1)) {
                directories.add(key.substring(0, slash));
            }
        }
        directories.retainAll(keys);
        assertTrue(directories.isEmpty(), directories.toString());
    }

    @Test
    void key_negativeId_throwsIllegalArgument() {
        assertThrows(IllegalArgumentException.class, () -> ObjectKeys.key(-1));
    }

    @Test
    void objectId_ownKey_returnsTheId() {
        for (long id : new long[] {0, 1, 77, 123_456_789L, Long.MAX_VALUE}) {
            assertEquals(OptionalLong.of(id), ObjectKeys.objectId(ObjectKeys.key(id)));
        }
    }

    @Test
    void objectId_otherKeys_returnsEmpty() {
        String key = ObjectKeys.key(5);
        String wrongPrefix = (key.startsWith("00") ? "01" : "00") + key.substring(2);
        for (String other : new String[] {wrongPrefix, "wal/0001", key + "/x", key.replace("/5", "/05"),
                key.replace("/5", "/"), key.replace("/5", "/-5"), key.replace("/obj/", "/o/"),
                key.replace("/5", "/99999999999999999999")}) {
            assertFalse(ObjectKeys.objectId(other).isPresent(), other);
        }
    }
}

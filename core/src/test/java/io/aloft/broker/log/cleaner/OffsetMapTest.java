package io.aloft.broker.log.cleaner;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class OffsetMapTest {
    private static ByteBuffer key(String s) {
        return ByteBuffer.wrap(s.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void put_thenGet_returnsTheLatestOffsetOfEachKey() {
        OffsetMap map = new OffsetMap(24 * 100, 0.9);
        map.put(key("a"), 1);
        map.put(key("b"), 2);
        map.put(key("a"), 7);

        assertEquals(7, map.get(key("a")));
        assertEquals(2, map.get(key("b")));
        assertEquals(-1, map.get(key("c")));
        assertEquals(2, map.size());
        assertEquals(7, map.lastOffset());
    }

    @Test
    void put_doesNotMoveTheKeysPosition() {
        OffsetMap map = new OffsetMap(24 * 10, 0.9);
        ByteBuffer k = ByteBuffer.allocate(8).put("xy".getBytes(StandardCharsets.UTF_8)).flip();
        map.put(k, 0);
        assertEquals(0, k.position());
        assertEquals(0, map.get(k));
    }

    @Test
    void offsetZero_isStoredAndFound() {
        OffsetMap map = new OffsetMap(24 * 10, 0.9);
        map.put(key("z"), 0);
        assertEquals(0, map.get(key("z")));
    }

    @Test
    void hasRoomFor_followsTheLoadFactor() {
        OffsetMap map = new OffsetMap(24 * 100, 0.5);
        assertEquals(100, map.slots());
        assertTrue(map.hasRoomFor(50));
        assertFalse(map.hasRoomFor(51));
        for (int i = 0; i < 50; i++) {
            map.put(key("k" + i), i);
        }
        assertFalse(map.hasRoomFor(1));
        assertTrue(map.hasRoomFor(0));
    }

    @Test
    void put_beyondTheSlots_refused() {
        OffsetMap map = new OffsetMap(24 * 4, 1.0);
        for (int i = 0; i < 3; i++) {
            map.put(key("k" + i), i);
        }
        assertThrows(IllegalStateException.class, () -> map.put(key("one-too-many"), 9));
    }

    @Test
    void manyKeys_eachFoundWithItsOwnOffset() {
        OffsetMap map = new OffsetMap(24L * 300_000, 0.9);
        for (int i = 0; i < 250_000; i++) {
            map.put(key("key-" + i), i);
        }
        for (int i = 0; i < 250_000; i++) {
            assertEquals(i, map.get(key("key-" + i)), "key-" + i);
        }
        assertEquals(-1, map.get(key("key-250000")));
    }

    @Test
    void clear_forgetsEveryKey() {
        OffsetMap map = new OffsetMap(24 * 10, 0.9);
        map.put(key("a"), 3);
        map.clear();
        assertEquals(-1, map.get(key("a")));
        assertEquals(0, map.size());
        assertEquals(-1, map.lastOffset());
    }
}

package io.aloft.stream.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class HeldBytesTest {

    @Test
    void release_oneBlockOfAGet_givesBackThatBlockAtOnce() {
        HeldBytes held = new HeldBytes(100);
        assertTrue(held.tryReserve(30));
        assertTrue(held.tryReserve(30));
        assertEquals(60, held.held());

        held.release(30); // the reader passed the first block: it owns its array, so it is free
        assertEquals(30, held.held());
        assertEquals(70, held.room());

        held.release(30);
        assertEquals(0, held.held());
    }

    @Test
    void tryReserve_overBudget_reservesNothing() {
        HeldBytes held = new HeldBytes(100);
        assertTrue(held.tryReserve(80));
        assertFalse(held.tryReserve(30));
        assertEquals(80, held.held());
        assertTrue(held.tryReserve(20));
        assertEquals(100, held.held());
    }

    @Test
    void release_moreThanReserved_throws() {
        HeldBytes held = new HeldBytes(100);
        held.tryReserve(10);
        held.release(10);
        assertThrows(IllegalStateException.class, () -> held.release(10));
    }
}

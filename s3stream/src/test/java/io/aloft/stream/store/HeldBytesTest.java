package io.aloft.stream.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class HeldBytesTest {

    @Test
    void release_beforeTheRunsLastBlock_keepsTheWholeRunCounted() {
        HeldBytes held = new HeldBytes(100);
        HeldBytes.Run run = held.newRun();
        assertTrue(run.tryAdd(30));
        assertTrue(run.tryAdd(30));
        assertEquals(60, held.held());

        run.release(); // the reader passed the first block; the run's buffer is still alive
        assertEquals(60, held.held());
        assertEquals(40, held.room());

        run.release();
        assertEquals(0, held.held());
    }

    @Test
    void tryAdd_overBudget_reservesNothing() {
        HeldBytes held = new HeldBytes(100);
        HeldBytes.Run first = held.newRun();
        assertTrue(first.tryAdd(80));
        HeldBytes.Run second = held.newRun();
        assertFalse(second.tryAdd(30));
        assertEquals(80, held.held());
        assertTrue(second.tryAdd(20));
        assertEquals(100, held.held());

        first.release();
        assertEquals(20, held.held());
        second.release();
        assertEquals(0, held.held());
    }

    @Test
    void release_moreBlocksThanAdded_throws() {
        HeldBytes held = new HeldBytes(100);
        HeldBytes.Run run = held.newRun();
        run.tryAdd(10);
        run.release();
        assertThrows(IllegalStateException.class, run::release);
    }
}

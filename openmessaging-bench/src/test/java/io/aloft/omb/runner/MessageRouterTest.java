package io.aloft.omb.runner;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.aloft.omb.workload.KeyDistributorType;
import org.junit.jupiter.api.Test;

class MessageRouterTest {
    private static final byte[][] KEYS = MessageRouter.keySet(1);

    @Test
    void nextPartition_hotShare_sendsThatShareToPartitionZeroAndCyclesTheRest() {
        MessageRouter r = new MessageRouter(KeyDistributorType.NO_KEY, KEYS, 0.9, 16, 7);
        int[] counts = new int[16];
        int n = 100_000;
        for (int i = 0; i < n; i++) {
            counts[r.nextPartition()]++;
        }
        assertEquals(0.9, counts[0] / (double) n, 0.01);
        for (int p = 1; p < 16; p++) {
            assertEquals(counts[1], counts[p], 1, "cold partition " + p + " gets its round-robin share");
        }
    }

    @Test
    void nextPartition_noHotShare_leavesItToTheClient() {
        assertNull(new MessageRouter(KeyDistributorType.NO_KEY, KEYS, 0, 16, 7).nextPartition());
    }

    @Test
    void nextKey_followsTheDistributor() {
        assertNull(new MessageRouter(KeyDistributorType.NO_KEY, KEYS, 0, 4, 1).nextKey());
        MessageRouter rr = new MessageRouter(KeyDistributorType.KEY_ROUND_ROBIN, KEYS, 0, 4, 1);
        assertTrue(rr.nextKey() != rr.nextKey(), "consecutive round-robin keys differ");
        assertNotNull(new MessageRouter(KeyDistributorType.RANDOM_NANO, KEYS, 0, 4, 1).nextKey());
        assertEquals(MessageRouter.KEY_COUNT, KEYS.length);
        assertEquals(7, KEYS[0].length);
    }
}

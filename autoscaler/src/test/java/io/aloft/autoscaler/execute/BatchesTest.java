package io.aloft.autoscaler.execute;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.aloft.autoscaler.balance.Move;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Batches and ExecutionLimits without a cluster (ReassignmentExecutorTest runs batches on one). */
class BatchesTest {

    private static Move move(String topic, int p, int from, int to) {
        return new Move(topic, p, from, to, 0, 0, "test");
    }

    @Test
    void split_perBrokerLimit_greedyInPlanOrder() {
        Move a = move("t", 0, 1, 4);
        Move b = move("t", 1, 1, 5);
        Move c = move("t", 2, 2, 4);
        Move d = move("t", 3, 3, 6);
        Move e = move("t", 4, 1, 6);
        // Limit 1: a takes brokers 1 and 4; b (1) and c (4) wait; d fits; e (1) waits.
        assertEquals(List.of(List.of(a, d), List.of(b, c), List.of(e)), Batches.split(List.of(a, b, c, d, e), 1));
        // Limit 2: broker 1 takes a and b, so e waits.
        assertEquals(List.of(List.of(a, b, c, d), List.of(e)), Batches.split(List.of(a, b, c, d, e), 2));
    }

    @Test
    void split_samePartitionTwice_separateBatches() {
        Move first = move("t", 0, 1, 2);
        Move again = move("t", 0, 2, 3);
        Move twin = move("t", 0, 1, 2);
        assertEquals(List.of(List.of(first), List.of(again), List.of(twin)),
                Batches.split(List.of(first, again, twin), 5));
    }

    @Test
    void split_nothing_noBatches() {
        assertEquals(List.of(), Batches.split(List.of(), 3));
    }

    @Test
    void limits_invalid_rejectedNamingTheField() {
        Duration s = Duration.ofSeconds(1);
        assertEquals("maxConcurrentMovesPerBroker must be at least 1, not 0",
                assertThrows(IllegalArgumentException.class, () -> new ExecutionLimits(0, s, 1, s)).getMessage());
        assertThrows(IllegalArgumentException.class, () -> new ExecutionLimits(1, s.negated(), 1, s));
        assertThrows(IllegalArgumentException.class, () -> new ExecutionLimits(1, s, 0, s));
        assertThrows(IllegalArgumentException.class, () -> new ExecutionLimits(1, s, 1, Duration.ZERO));
        assertThrows(NullPointerException.class, () -> new ExecutionLimits(1, null, 1, s));
        new ExecutionLimits(1, Duration.ZERO, 1, s);
    }
}

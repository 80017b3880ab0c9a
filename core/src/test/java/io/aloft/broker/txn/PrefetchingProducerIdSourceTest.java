package io.aloft.broker.txn;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.ArrayDeque;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.errors.CoordinatorLoadInProgressException;
import org.junit.jupiter.api.Test;

class PrefetchingProducerIdSourceTest {

    /** Hands out the futures a test queued, in order. */
    private final ArrayDeque<CompletableFuture<Long>> answers = new ArrayDeque<>();
    private int asked;
    private final PrefetchingProducerIdSource source = new PrefetchingProducerIdSource(() -> {
        asked++;
        CompletableFuture<Long> f = answers.poll();
        return f != null ? f : new CompletableFuture<>();
    });

    @Test
    void nextProducerId_readyIds_handedOutInOrder() {
        answers.add(CompletableFuture.completedFuture(7L));
        answers.add(CompletableFuture.completedFuture(8L));
        assertEquals(7L, source.nextProducerId());
        assertEquals(8L, source.nextProducerId());
    }

    @Test
    void nextProducerId_idStillComing_loadInProgressThenTheIdOnceItCame() {
        CompletableFuture<Long> slow = new CompletableFuture<>();
        answers.add(slow);
        assertThrows(CoordinatorLoadInProgressException.class, source::nextProducerId);
        assertThrows(CoordinatorLoadInProgressException.class, source::nextProducerId);
        assertEquals(1, asked, "one request in flight, not one per call");
        slow.complete(42L);
        assertEquals(42L, source.nextProducerId());
    }

    @Test
    void nextProducerId_failedRequest_loadInProgressThenAskedAgain() {
        answers.add(CompletableFuture.failedFuture(new RuntimeException("controller unavailable")));
        answers.add(CompletableFuture.completedFuture(9L));
        CoordinatorLoadInProgressException e = assertThrows(CoordinatorLoadInProgressException.class,
                source::nextProducerId);
        assertEquals("controller unavailable", e.getCause().getMessage());
        assertEquals(9L, source.nextProducerId());
        assertEquals(3, asked, "the failed one, its replacement, and the prefetch after it");
    }
}

package io.aloft.controller.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.aloft.controller.model.BrokerInfo;
import io.aloft.controller.model.BrokerState;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class BrokerLivenessTest {
    private static final long SECOND = TimeUnit.SECONDS.toNanos(1);

    @Test
    void aCheckLongAfterThePreviousOneIsLate() {
        BrokerLiveness liveness = new BrokerLiveness();
        long t0 = System.nanoTime();
        assertFalse(liveness.checkedLate(t0, 2 * SECOND), "the first check has nothing to be late against");
        assertFalse(liveness.checkedLate(t0 + SECOND, 2 * SECOND));
        assertFalse(liveness.checkedLate(t0 + 3 * SECOND, 2 * SECOND), "exactly the allowed gap is on time");
        // A pause: the next check comes 33 s after the previous one.
        assertTrue(liveness.checkedLate(t0 + 36 * SECOND, 2 * SECOND));
        assertFalse(liveness.checkedLate(t0 + 37 * SECOND, 2 * SECOND), "the check after a late one is on time");
    }

    @Test
    void afterALateCheckNoBrokerHasLapsedUntilAFullSessionPassed() throws Exception {
        BrokerLiveness liveness = new BrokerLiveness();
        BrokerInfo broker = registered(1);
        liveness.heard(1);
        Thread.sleep(30);
        long session = TimeUnit.MILLISECONDS.toNanos(20);
        assertEquals(List.of(broker), liveness.lapsed(List.of(broker), session), "silent for longer than a session");

        long now = System.nanoTime();
        liveness.checkedLate(now - 10 * SECOND, SECOND);
        assertTrue(liveness.checkedLate(now, SECOND));
        assertEquals(List.of(), liveness.lapsed(List.of(broker), 10 * SECOND), "a late check restarts every session");
    }

    private static BrokerInfo registered(int id) {
        return new BrokerInfo(id, "run-" + id, 1, List.of(), null, BrokerState.ACTIVE);
    }
}

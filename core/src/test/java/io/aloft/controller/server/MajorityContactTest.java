package io.aloft.controller.server;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The rule by which a controller leader fences brokers only while a majority of the voters
 * answers it ({@link ControllerServer#majorityAnswered}): a leader cut off from the others sees
 * every broker silent (no heartbeat can be applied), and fences it wrote then would take effect
 * once the others return with it as the longest log (seen in ControllerQuorumLossTest's runs).
 */
class MajorityContactTest {
    @Test
    void countsTheLeaderAndTheFollowersThatAnsweredWithinTheLimit() {
        assertTrue(ControllerServer.majorityAnswered(1, List.of(), 1_500), "a single voter is its own majority");
        assertTrue(ControllerServer.majorityAnswered(3, List.of(200L, 9_000L), 1_500));
        assertTrue(ControllerServer.majorityAnswered(3, List.of(1_500L, 9_000L), 1_500));
        assertFalse(ControllerServer.majorityAnswered(3, List.of(1_501L, 9_000L), 1_500));
        assertTrue(ControllerServer.majorityAnswered(5, List.of(100L, 100L, 9_000L, 9_000L), 1_500));
        assertFalse(ControllerServer.majorityAnswered(5, List.of(100L, 9_000L, 9_000L, 9_000L), 1_500));
    }
}

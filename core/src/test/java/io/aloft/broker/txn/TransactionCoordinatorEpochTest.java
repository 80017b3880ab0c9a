package io.aloft.broker.txn;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;

/**
 * The coordinator epoch markers carry is the one each {@code __transaction_state} partition was
 * loaded at (Kafka's: the partition's leader epoch when this coordinator took it), asked once per
 * load, not whatever the partition's epoch is when the markers are written.
 */
class TransactionCoordinatorEpochTest {
    private final TxnTestKit kit = new TxnTestKit();

    /** Replaces the kit's coordinator with one over the same log whose partitions load at {@code base + partition}. */
    private void loadAt(int base) {
        kit.coordinator.close();
        kit.coordinator = new TransactionCoordinator(kit.config, kit.log, kit.timer, kit.threads, kit.ids, kit.markers,
                partition -> base + partition);
        kit.coordinator.loadAll();
    }

    @Test
    void markers_carryTheEpochThePartitionWasLoadedAt() {
        loadAt(40);
        ProducerResult p = kit.init("t");
        assertEquals(Errors.NONE, kit.add("t", p, "orders", 0, 1));
        assertEquals(Errors.NONE, kit.end("t", p, true).error());
        assertEquals(40 + kit.coordinator.partitionFor("t"), kit.markers.last().coordinatorEpoch());
    }

    @Test
    void prepareFoundOnLoad_isResentWithTheNewLoadsEpoch() {
        loadAt(40);
        ProducerResult p = kit.init("t");
        kit.add("t", p, "orders", 0);
        kit.markers.hold = true; // the first coordinator's markers never complete: it moves away
        kit.end("t", p, false);
        int partition = kit.coordinator.partitionFor("t");
        assertEquals(40 + partition, kit.markers.last().coordinatorEpoch());
        int before = kit.markers.calls.size();
        kit.markers.hold = false;
        loadAt(50);
        assertEquals(before + 1, kit.markers.calls.size(), "PrepareAbort found on load: its markers again");
        assertEquals(50 + partition, kit.markers.last().coordinatorEpoch());
        assertEquals("CompleteAbort", kit.state("t"));
    }
}

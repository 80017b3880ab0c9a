package io.aloft.broker.share.state;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The merge of written batches into stored ones. Each expectation is what Kafka 4.3.1's share
 * coordinator stored for the same writes (sent to it with WriteShareGroupState and read back).
 */
class StateBatchesTest {
    private static StateBatch b(long first, long last, int state, int count) {
        return new StateBatch(first, last, (byte) state, (short) count);
    }

    @Test
    void merge_intoNothing_keepsWrittenSorted() {
        assertEquals(List.of(b(5, 20, 2, 1), b(21, 30, 0, 1)),
                StateBatches.merge(List.of(), List.of(b(21, 30, 0, 1), b(5, 20, 2, 1)), 5));
    }

    @Test
    void merge_higherCountInside_splitsStoredRange() {
        assertEquals(List.of(b(5, 9, 2, 1), b(10, 12, 4, 3), b(13, 20, 2, 1), b(21, 30, 0, 1)),
                StateBatches.merge(List.of(b(5, 20, 2, 1), b(21, 30, 0, 1)),
                        List.of(b(10, 12, 4, 3), b(25, 25, 0, 0)), 5));
    }

    @Test
    void merge_adjacentEqual_areJoined() {
        assertEquals(List.of(b(5, 9, 2, 1), b(10, 14, 4, 3), b(15, 20, 2, 1)),
                StateBatches.merge(List.of(b(5, 9, 2, 1), b(10, 12, 4, 3), b(13, 20, 2, 1)),
                        List.of(b(13, 14, 4, 3)), 5));
    }

    @Test
    void merge_startOffset_dropsAndCutsBatchesBelow() {
        assertEquals(List.of(b(11, 14, 4, 3), b(15, 20, 2, 1)),
                StateBatches.merge(List.of(b(5, 9, 2, 1), b(10, 14, 4, 3), b(15, 20, 2, 1)), List.of(), 11));
    }

    @Test
    void merge_startOffsetMovedBack_takesWrittenBatchesAboveIt() {
        assertEquals(List.of(b(8, 9, 2, 1), b(11, 14, 4, 3)),
                StateBatches.merge(List.of(b(11, 14, 4, 3)), List.of(b(0, 9, 2, 1)), 8));
    }

    @Test
    void merge_overlap_highestCountThenHighestStateWins_whateverTheOrder() {
        List<StateBatch> stored = List.of(b(10, 20, 2, 1), b(21, 30, 0, 1), b(31, 40, 4, 3));
        List<StateBatch> written = List.of(
                b(12, 12, 4, 1),  // same count, higher state: taken
                b(14, 14, 0, 1),  // same count, lower state: ignored
                b(22, 22, 2, 0),  // lower count, higher state: ignored
                b(24, 24, 0, 2),  // higher count: taken
                b(33, 33, 2, 1),  // lower count and state: ignored
                b(35, 35, 2, 3)); // same count, lower state: ignored
        assertEquals(List.of(b(10, 11, 2, 1), b(12, 12, 4, 1), b(13, 20, 2, 1), b(21, 23, 0, 1), b(24, 24, 0, 2),
                b(25, 30, 0, 1), b(31, 40, 4, 3)), StateBatches.merge(stored, written, 0));
    }

    @Test
    void merge_overlapWithinOneWrite_andAvailableWithCountZero_isStored() {
        assertEquals(List.of(b(60, 70, 2, 1), b(80, 85, 0, 0)),
                StateBatches.merge(List.of(), List.of(b(60, 70, 2, 1), b(65, 66, 0, 1), b(80, 85, 0, 0)), 0));
    }

    @Test
    void merge_noStartOffset_keepsEverything() {
        assertEquals(List.of(b(0, 3, 0, 1)), StateBatches.merge(List.of(), List.of(b(0, 3, 0, 1)), -1));
    }

    @Test
    void merge_manyNestedBatches_eachOffsetTakesItsBest() {
        // Nested ranges of rising counts: each inner one wins over the ones around it.
        List<StateBatch> written = List.of(b(0, 100, 0, 1), b(10, 90, 0, 2), b(20, 80, 0, 3), b(30, 70, 0, 4));
        assertEquals(List.of(b(0, 9, 0, 1), b(10, 19, 0, 2), b(20, 29, 0, 3), b(30, 70, 0, 4), b(71, 80, 0, 3),
                b(81, 90, 0, 2), b(91, 100, 0, 1)), StateBatches.merge(List.of(), written, 0));
    }
}

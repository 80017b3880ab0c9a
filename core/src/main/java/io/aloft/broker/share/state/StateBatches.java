package io.aloft.broker.share.state;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;
import java.util.TreeSet;

/**
 * How WriteShareGroupState merges batches into the stored ones, as Kafka 4.3's share coordinator does
 * (checked against it by sending it the same writes): batches below the start offset are dropped (one
 * straddling it is cut at it); where batches overlap, each offset takes the state of the batch with
 * the highest delivery count, and among those the highest delivery state (AVAILABLE 0 &lt;
 * ACKNOWLEDGED 2 &lt; ARCHIVED 4), whichever was written first. That is a join, not "the last write
 * wins": an offset's delivery count only grows and ACKNOWLEDGED and ARCHIVED are final, so the
 * answer is the same as "last wins" for every write a share partition makes, and a write retried or
 * reordered cannot move an offset backwards. Adjacent batches of equal state and count are merged,
 * and the result is sorted and free of overlaps. Stateless.
 */
final class StateBatches {
    /** Higher delivery count first, then higher state. */
    private static final Comparator<StateBatch> PRIORITY = Comparator.comparingInt(StateBatch::deliveryCount)
            .thenComparingInt(StateBatch::deliveryState).reversed();

    private StateBatches() {
    }

    /**
     * The stored batches after a write.
     *
     * @param stored sorted, not overlapping
     * @param written in any order, may overlap
     * @param startOffset offsets below it are dropped (-1: nothing is)
     */
    static List<StateBatch> merge(List<StateBatch> stored, List<StateBatch> written, long startOffset) {
        List<StateBatch> all = new ArrayList<>(stored.size() + written.size());
        for (List<StateBatch> l : List.of(stored, written)) {
            for (StateBatch b : l) {
                if (b.lastOffset() < startOffset) {
                    continue;
                }
                all.add(b.firstOffset() >= startOffset ? b
                        : new StateBatch(startOffset, b.lastOffset(), b.deliveryState(), b.deliveryCount()));
            }
        }
        if (all.isEmpty()) {
            return List.of();
        }
        all.sort(Comparator.comparingLong(StateBatch::firstOffset));
        // Every offset where the covering set may change: a first offset, or one past a last offset.
        TreeSet<Long> bounds = new TreeSet<>();
        for (StateBatch b : all) {
            bounds.add(b.firstOffset());
            bounds.add(b.lastOffset() + 1);
        }
        PriorityQueue<StateBatch> covering = new PriorityQueue<>(PRIORITY);
        List<StateBatch> out = new ArrayList<>();
        int next = 0;
        Long from = bounds.first();
        while (from != null) {
            Long to = bounds.higher(from);
            while (next < all.size() && all.get(next).firstOffset() <= from) {
                covering.add(all.get(next++));
            }
            while (!covering.isEmpty() && covering.peek().lastOffset() < from) {
                covering.poll(); // ended before this range: dropped lazily, once it comes up
            }
            if (!covering.isEmpty() && to != null) {
                append(out, new StateBatch(from, to - 1, covering.peek().deliveryState(),
                        covering.peek().deliveryCount()));
            }
            from = to;
        }
        return out;
    }

    /** Adds {@code b} after the last batch, merged into it when adjacent with the same state and count. */
    private static void append(List<StateBatch> out, StateBatch b) {
        if (!out.isEmpty()) {
            StateBatch last = out.get(out.size() - 1);
            if (last.lastOffset() + 1 == b.firstOffset() && last.deliveryState() == b.deliveryState()
                    && last.deliveryCount() == b.deliveryCount()) {
                out.set(out.size() - 1, new StateBatch(last.firstOffset(), b.lastOffset(), b.deliveryState(),
                        b.deliveryCount()));
                return;
            }
        }
        out.add(b);
    }
}

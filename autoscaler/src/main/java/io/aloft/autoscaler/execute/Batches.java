package io.aloft.autoscaler.execute;

import io.aloft.autoscaler.balance.Move;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Splits moves into batches in which no broker, as source or destination, takes part in more than a
 * given number of moves, and no partition appears twice. Greedy in plan order: each batch takes,
 * in order, every remaining move that still fits, so the plan's first moves run first and the split
 * is deterministic. Every batch holds at least one move (any move fits an empty batch).
 *
 * <p>Stateless.
 */
public final class Batches {

    private Batches() {
    }

    public static List<List<Move>> split(List<Move> moves, int maxPerBroker) {
        List<Move> pending = new ArrayList<>(moves);
        List<List<Move>> out = new ArrayList<>();
        while (!pending.isEmpty()) {
            List<Move> batch = new ArrayList<>();
            List<Move> rest = new ArrayList<>();
            Map<Integer, Integer> perBroker = new HashMap<>();
            Set<String> partitions = new HashSet<>();
            for (Move m : pending) {
                if (perBroker.getOrDefault(m.fromBroker(), 0) < maxPerBroker
                        && perBroker.getOrDefault(m.toBroker(), 0) < maxPerBroker && partitions.add(m.name())) {
                    batch.add(m);
                    perBroker.merge(m.fromBroker(), 1, Integer::sum);
                    perBroker.merge(m.toBroker(), 1, Integer::sum);
                } else {
                    rest.add(m);
                }
            }
            pending = rest;
            out.add(batch);
        }
        return out;
    }
}

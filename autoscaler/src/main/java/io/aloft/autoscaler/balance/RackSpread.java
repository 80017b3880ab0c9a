package io.aloft.autoscaler.balance;

import io.aloft.autoscaler.model.PartitionLoad;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The rack-spread goal's bookkeeping: each topic's partitions per rack, over the racks of the ready
 * brokers not being drained (the targets), and whether a set of moves keeps every topic's spread.
 * With one replica per partition, {@code broker.rack} means what the controller's placement makes
 * of it: a topic's partitions spread evenly over racks (counts differing by at most one), whatever
 * the racks' broker counts, so losing a rack takes an even share of every topic. Brokers without a
 * rack together form one rack, as in the controller. Partitions on brokers that are not targets are
 * counted nowhere (they are being drained, or are on a broker not ready).
 *
 * <p>Not thread-safe: part of one {@link BalanceState}, which updates it on every move; it reads the
 * state's {@code owner} and {@code target} arrays, which it shares.
 */
final class RackSpread {
    /** The rack key of brokers without {@code broker.rack}. */
    static final String NO_RACK = "";

    private final boolean rackAware;
    private final boolean[] target;
    private final int[] owner;
    /** Racks holding at least one target, sorted; a topic's spread is counted over these. */
    final String[] names;
    /** Per topic, its partitions on targets per rack (index into {@link #names}). */
    final TreeMap<String, int[]> topics = new TreeMap<>();
    /** Per topic, its partitions (indices into the snapshot's sorted list). */
    final TreeMap<String, List<Integer>> partitionsByTopic = new TreeMap<>();
    /** Per partition, its topic's array in {@link #topics} (shared, so it stays current). */
    private final int[][] partitionRacks;
    /** Per broker, its rack's index in {@link #names}; -1 if no target shares its rack. */
    private final int[] brokerRack;

    /**
     * @param rackOf each broker's rack key (all {@link #NO_RACK} when racks are off)
     * @param target whether each broker is a target (shared with the state)
     * @param owner each partition's broker index, -1 if unregistered (shared with the state, which updates it)
     */
    RackSpread(boolean rackAware, String[] rackOf, boolean[] target, PartitionLoad[] parts, int[] owner) {
        this.rackAware = rackAware;
        this.target = target;
        this.owner = owner;
        TreeSet<String> rackSet = new TreeSet<>();
        for (int b = 0; b < rackOf.length; b++) {
            if (target[b]) {
                rackSet.add(rackOf[b]);
            }
        }
        names = rackSet.toArray(new String[0]);
        Map<String, Integer> rackIndex = new HashMap<>();
        for (int r = 0; r < names.length; r++) {
            rackIndex.put(names[r], r);
        }
        brokerRack = new int[rackOf.length];
        for (int b = 0; b < rackOf.length; b++) {
            brokerRack[b] = rackIndex.getOrDefault(rackOf[b], -1);
        }
        partitionRacks = new int[parts.length][];
        for (int p = 0; p < parts.length; p++) {
            partitionsByTopic.computeIfAbsent(parts[p].topic(), t -> new ArrayList<>()).add(p);
            int[] perRack = topics.computeIfAbsent(parts[p].topic(), t -> new int[names.length]);
            partitionRacks[p] = perRack;
            if (owner[p] >= 0 && target[owner[p]]) {
                perRack[brokerRack[owner[p]]]++;
            }
        }
    }

    /** Whether the goal applies: racks are on and the targets span more than one. */
    boolean active() {
        return rackAware && names.length > 1;
    }

    /** Broker {@code b}'s rack index; -1 if no target is in its rack. */
    int rackOf(int b) {
        return brokerRack[b];
    }

    /** Partition {@code p}'s topic's partitions on targets, per rack; current. */
    int[] countsOf(int p) {
        return partitionRacks[p];
    }

    /** Largest minus smallest count over the racks: 0 or 1 is an even spread. */
    static int spread(int[] perRack) {
        int max = Integer.MIN_VALUE;
        int min = Integer.MAX_VALUE;
        for (int c : perRack) {
            max = Math.max(max, c);
            min = Math.min(min, c);
        }
        return perRack.length == 0 ? 0 : max - min;
    }

    /** Partitions above the even share's ceiling plus partitions missing below its floor. */
    static int violation(int[] perRack) {
        int total = 0;
        for (int c : perRack) {
            total += c;
        }
        int floor = total / perRack.length;
        int ceil = floor + (total % perRack.length == 0 ? 0 : 1);
        int v = 0;
        for (int c : perRack) {
            v += Math.max(0, c - ceil) + Math.max(0, floor - c);
        }
        return v;
    }

    /**
     * Whether moving {@code p} to broker {@code to} keeps its topic's spread: even stays even, and an
     * uneven one gets no worse.
     */
    boolean keeps(int p, int to) {
        return keeps(new int[] {p}, new int[] {to});
    }

    /** {@link #keeps(int, int)} for moving each {@code ps[i]} to {@code tos[i]} together. */
    boolean keeps(int[] ps, int[] tos) {
        if (!active()) {
            return true;
        }
        boolean sameRack = true;
        for (int i = 0; i < ps.length && sameRack; i++) {
            int from = owner[ps[i]];
            sameRack = target[from] && brokerRack[from] == brokerRack[tos[i]];
        }
        if (sameRack) {
            return true;
        }
        // A handful of moves: topics told apart by their (shared) arrays, no maps.
        int[][] before = new int[ps.length][];
        int[][] after = new int[ps.length][];
        int topicCount = 0;
        for (int i = 0; i < ps.length; i++) {
            int[] current = partitionRacks[ps[i]];
            int t = 0;
            while (t < topicCount && before[t] != current) {
                t++;
            }
            if (t == topicCount) {
                before[t] = current;
                after[t] = current.clone();
                topicCount++;
            }
            int from = owner[ps[i]];
            if (target[from]) {
                after[t][brokerRack[from]]--;
            }
            after[t][brokerRack[tos[i]]]++;
        }
        for (int t = 0; t < topicCount; t++) {
            if (spread(after[t]) > Math.max(1, spread(before[t])) || violation(after[t]) > violation(before[t])) {
                return false;
            }
        }
        return true;
    }

    /** Counts partition {@code p} (still on its old broker in {@code owner}) on broker {@code to}'s rack. */
    void moved(int p, int to) {
        int from = owner[p];
        if (target[from]) {
            partitionRacks[p][brokerRack[from]]--;
        }
        partitionRacks[p][brokerRack[to]]++;
    }

    int unevenTopics() {
        if (!active()) {
            return 0;
        }
        int uneven = 0;
        for (int[] perRack : topics.values()) {
            uneven += spread(perRack) > 1 ? 1 : 0;
        }
        return uneven;
    }
}

package io.aloft.omb.runner;

import io.aloft.omb.workload.KeyDistributorType;
import java.nio.charset.StandardCharsets;
import java.util.Random;
import java.util.SplittableRandom;

/**
 * Picks the key and, for the hot-partition extension, the partition of each message of one
 * producer client. Confined to that producer's thread.
 *
 * <p>Keys follow OMB's key distributors: a fixed set of {@link #KEY_COUNT} random 7-character
 * keys (the same set for every producer of a run), taken in order ({@code KEY_ROUND_ROBIN}) or at
 * {@code nanoTime mod KEY_COUNT} ({@code RANDOM_NANO}); {@code NO_KEY} sends none. With a hot
 * share above 0, a message goes to partition 0 with that probability and otherwise round-robin to
 * partitions 1..n-1, whatever its key; otherwise the partition is left to the client's
 * partitioner.
 */
final class MessageRouter {
    static final int KEY_COUNT = 10_000;

    private final KeyDistributorType distributor;
    private final byte[][] keys;
    private final double hotShare;
    private final int partitions;
    private final SplittableRandom random;
    private int nextKey;
    private int nextCold;

    MessageRouter(KeyDistributorType distributor, byte[][] keys, double hotShare, int partitions, long seed) {
        this.distributor = distributor;
        this.keys = keys;
        this.hotShare = hotShare;
        this.partitions = partitions;
        this.random = new SplittableRandom(seed);
    }

    /** The shared key set of a run. */
    static byte[][] keySet(long seed) {
        Random r = new Random(seed);
        String alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
        byte[][] keys = new byte[KEY_COUNT][];
        for (int i = 0; i < KEY_COUNT; i++) {
            StringBuilder sb = new StringBuilder(7);
            for (int j = 0; j < 7; j++) {
                sb.append(alphabet.charAt(r.nextInt(alphabet.length())));
            }
            keys[i] = sb.toString().getBytes(StandardCharsets.US_ASCII);
        }
        return keys;
    }

    /** The key of the next message, or null. */
    byte[] nextKey() {
        switch (distributor) {
            case KEY_ROUND_ROBIN:
                nextKey = (nextKey + 1) % KEY_COUNT;
                return keys[nextKey];
            case RANDOM_NANO:
                return keys[(int) Math.floorMod(System.nanoTime(), (long) KEY_COUNT)];
            case NO_KEY:
            default:
                return null;
        }
    }

    /** The partition of the next message, or null to let the client's partitioner choose. */
    Integer nextPartition() {
        if (hotShare <= 0) {
            return null;
        }
        if (hotShare >= 1 || random.nextDouble() < hotShare) {
            return 0;
        }
        nextCold = nextCold % (partitions - 1) + 1;
        return nextCold;
    }
}

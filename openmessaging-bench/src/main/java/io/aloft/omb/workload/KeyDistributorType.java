package io.aloft.omb.workload;

/**
 * How producers choose record keys, as OMB's {@code KeyDistributorType}. Keys are drawn from a
 * fixed set of random strings, so keyed workloads spread over partitions by the client's hash.
 */
public enum KeyDistributorType {
    /** No key: the client's sticky partitioner picks partitions. */
    NO_KEY,
    /** Each producer cycles through the key set in order. */
    KEY_ROUND_ROBIN,
    /** Each message takes the key at (nanoTime mod key count). */
    RANDOM_NANO
}

package io.aloft.controller.model;

/**
 * The cluster-wide feature level (Kafka's {@code metadata.version}): a number the quorum agrees on
 * that says which controller record versions may be written. A build supports a range of levels;
 * the <em>finalized</em> level is part of the replicated state and only rises, by an explicit
 * upgrade once every voter and every unfenced broker supports the new level. Until then every
 * record is written at the newest version the finalized level allows, so a voter or broker of the
 * previous build can still read everything.
 *
 * <p>The levels (append only; a level's meaning never changes):
 * <ul>
 * <li>{@value #INITIAL}: every controller record type at version 0, the format introduced with
 *     explicit record schemas (there is no upgrade path from the pre-release reflective format).</li>
 * <li>{@value #KEY_COMPACTION}: the {@code ReplaceStreamRange} command (version 0), with which a
 *     broker's log cleaner commits a compacted range of a partition. Brokers do not compact keyed
 *     topics below this level.</li>
 * <li>{@value #RACK_AWARE_PLACEMENT}: no new record; the controller's placement spreads each topic's
 *     partitions over {@code broker.rack}s. Placement is part of the replicated state, so voters of
 *     the previous build (which ignore racks) would place differently: below this level racks are
 *     ignored.</li>
 * <li>{@value #SECURITY_METADATA}: {@code MetadataEvent} and {@code ClusterImage} version 1, which
 *     carry the key-value entries under {@link SecurityKeys#PREFIX} (credentials, ACLs, client
 *     quotas) to every broker's change-feed watcher. Brokers refuse to write those entries below
 *     this level: a watcher of the previous build would never see them.</li>
 * </ul>
 *
 * <p>Immutable constants.
 */
public final class FeatureLevel {
    private FeatureLevel() {
    }

    /**
     * The level of a new state, before its voters have all reported (then it finalizes the highest
     * level they all support, once). A constant, never "the newest this build knows": voters of
     * different builds must start from the same state.
     */
    public static final int INITIAL = 1;

    /** Key compaction: the {@code ReplaceStreamRange} command. */
    public static final int KEY_COMPACTION = 2;

    /** Rack-aware placement of partitions (no new record). */
    public static final int RACK_AWARE_PLACEMENT = 3;

    /** Security entries of the key-value space on the change feed. */
    public static final int SECURITY_METADATA = 4;

    /** The lowest level this build reads and writes. */
    public static final int MIN_SUPPORTED = INITIAL;

    /** The highest level this build reads and writes. */
    public static final int LATEST = SECURITY_METADATA;
}

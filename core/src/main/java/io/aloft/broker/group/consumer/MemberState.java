package io.aloft.broker.group.consumer;

/**
 * Where a member is in reconciling towards its target assignment (KIP-848), with the code the
 * member's current-assignment record stores (explicit, not the ordinal, so reordering is harmless).
 * Immutable.
 */
public enum MemberState {
    /** The member has the epoch and the partitions of its target assignment (as far as it can now). */
    STABLE(0, "stable"),
    /** The member must revoke partitions first; it keeps its epoch until it no longer owns them. */
    UNREVOKED_PARTITIONS(1, "unrevoked_partitions"),
    /** The member has the new epoch but waits for partitions other members have not released yet. */
    UNRELEASED_PARTITIONS(2, "unreleased_partitions");

    private final int code;
    private final String label;

    MemberState(int code, String label) {
        this.code = code;
        this.label = label;
    }

    public int code() {
        return code;
    }

    /** @throws IllegalArgumentException for a code no state has */
    public static MemberState ofCode(int code) {
        for (MemberState s : values()) {
            if (s.code == code) {
                return s;
            }
        }
        throw new IllegalArgumentException("unknown member state code " + code);
    }

    @Override
    public String toString() {
        return label;
    }
}

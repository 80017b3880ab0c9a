package io.aloft.stream.store;

import io.aloft.wal.WalRecord;
import java.util.Iterator;

/**
 * Puts what a dead broker's WAL held into object storage, through a live broker's store: the
 * records (read by taking that WAL over) that continue the streams the dead broker still holds
 * open, at the epochs it wrote them with, are uploaded and committed as this broker's objects.
 * Streams already moved to a new owner, or whose data was committed before, are left alone, so a
 * replay done twice (a take-over repeated after its broker died) commits nothing the second time.
 *
 * <p>Stateless; {@link #replay} blocks its caller (a failover thread) until committed.
 */
public final class WalTakeOverReplay {
    private WalTakeOverReplay() {
    }

    /** Replays {@code records} of node {@code deadNodeId}'s WAL; returns how many streams got data. */
    public static int replay(StreamStore store, int deadNodeId, Iterator<WalRecord> records) {
        return store.replayer().replay(records, deadNodeId).streams();
    }
}

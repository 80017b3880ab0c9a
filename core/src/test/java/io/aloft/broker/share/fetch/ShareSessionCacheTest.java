package io.aloft.broker.share.fetch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.aloft.broker.share.ShareGroupConfig;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;

class ShareSessionCacheTest {
    private static final Uuid T = Uuid.randomUuid();
    private static final SessionPartition P0 = new SessionPartition(T, 0);
    private static final SessionPartition P1 = new SessionPartition(T, 1);

    private final AtomicLong now = new AtomicLong(1_000);
    private final FakeSharePartitions shares = new FakeSharePartitions();

    private ShareSessionCache cache(int max) {
        return new ShareSessionCache(max, 60_000, now::get, shares);
    }

    @Test
    void fetch_epochs_openIncrementThenMismatchOrMissing() {
        ShareSessionCache c = cache(10);
        assertEquals(Errors.SHARE_SESSION_NOT_FOUND, c.fetch("g", "m", 1, List.of(), List.of(), false).error());
        assertEquals(Errors.SHARE_SESSION_NOT_FOUND, c.fetch("g", "m", -1, List.of(), List.of(), false).error());
        ShareSessionCache.FetchStep open = c.fetch("g", "m", 0, List.of(P0), List.of(), false);
        assertEquals(Errors.NONE, open.error());
        assertEquals(ShareSessionCache.Mode.FULL, open.mode());
        assertEquals(List.of(P0), open.partitions());
        assertEquals(1, c.expectedEpoch("g", "m"));
        ShareSessionCache.FetchStep next = c.fetch("g", "m", 1, List.of(P1), List.of(), true);
        assertEquals(ShareSessionCache.Mode.INCREMENTAL, next.mode());
        assertEquals(List.of(P0, P1), next.partitions());
        assertEquals(Errors.INVALID_SHARE_SESSION_EPOCH, c.fetch("g", "m", 1, List.of(), List.of(), false).error());
        assertEquals(Errors.INVALID_SHARE_SESSION_EPOCH, c.fetch("g", "m", 5, List.of(), List.of(), false).error());
        assertEquals(2, c.expectedEpoch("g", "m"), "a refused epoch does not move the session on");
        assertEquals(List.of(P1), c.fetch("g", "m", 2, List.of(), List.of(P0), false).partitions(), "forgotten");
        assertNull(c.expectedEpoch("g", "other"), "sessions are per member");
        assertNull(c.expectedEpoch("other", "m"), "and per group");
    }

    @Test
    void fetch_epochZeroWithAcknowledgements_invalidRequestAndNoSession() {
        ShareSessionCache c = cache(10);
        assertEquals(Errors.INVALID_REQUEST, c.fetch("g", "m", 0, List.of(P0), List.of(), true).error());
        assertEquals(0, c.size());
    }

    @Test
    void fetch_epochZeroAgain_replacesTheSessionWithoutReleasing() {
        ShareSessionCache c = cache(10);
        c.fetch("g", "m", 0, List.of(P0), List.of(), false);
        c.fetch("g", "m", 1, List.of(), List.of(), false);
        assertEquals(List.of(P1), c.fetch("g", "m", 0, List.of(P1), List.of(), false).partitions());
        assertEquals(1, c.expectedEpoch("g", "m"));
        assertEquals(1, c.size());
        assertEquals(List.of(), shares.released);
    }

    @Test
    void epochs_wrapFromMaxToOne() {
        assertEquals(1, ShareSessionCache.nextEpoch(Integer.MAX_VALUE));
        assertEquals(2, ShareSessionCache.nextEpoch(1));
        assertEquals(-1, ShareSessionCache.nextEpoch(-1));
    }

    @Test
    void fetch_finalEpoch_closeReleasesTheMember() {
        ShareSessionCache c = cache(10);
        c.fetch("g", "m", 0, List.of(P0), List.of(), false);
        ShareSessionCache.FetchStep last = c.fetch("g", "m", -1, List.of(P0), List.of(), true);
        assertEquals(ShareSessionCache.Mode.FINAL, last.mode());
        assertEquals(List.of(), last.partitions(), "a final fetch acquires nothing");
        assertEquals(List.of(), shares.released, "not before its acknowledgements are applied");
        c.close(last);
        assertEquals(List.of("g/m"), shares.released);
        assertEquals(0, c.size());
    }

    @Test
    void close_afterANewSessionOpened_leavesTheNewOne() {
        ShareSessionCache c = cache(10);
        c.fetch("g", "m", 0, List.of(), List.of(), false);
        ShareSessionCache.FetchStep last = c.fetch("g", "m", -1, List.of(), List.of(), false);
        c.fetch("g", "m", 0, List.of(), List.of(), false);
        c.close(last);
        assertEquals(1, c.expectedEpoch("g", "m"));
    }

    @Test
    void acknowledge_epochs() {
        ShareSessionCache c = cache(10);
        assertEquals(Errors.INVALID_SHARE_SESSION_EPOCH, c.acknowledge("g", "m", 0), "checked before the lookup");
        assertEquals(Errors.SHARE_SESSION_NOT_FOUND, c.acknowledge("g", "m", 1));
        assertEquals(Errors.SHARE_SESSION_NOT_FOUND, c.acknowledge("g", "m", -1));
        c.fetch("g", "m", 0, List.of(), List.of(), false);
        assertEquals(Errors.INVALID_SHARE_SESSION_EPOCH, c.acknowledge("g", "m", 0));
        assertEquals(Errors.INVALID_SHARE_SESSION_EPOCH, c.acknowledge("g", "m", 2));
        assertEquals(Errors.NONE, c.acknowledge("g", "m", 1));
        assertEquals(Errors.NONE, c.fetch("g", "m", 2, List.of(), List.of(), false).error(), "one epoch sequence");
        assertEquals(Errors.NONE, c.acknowledge("g", "m", -1));
        assertEquals(3, c.expectedEpoch("g", "m"), "-1 leaves the session to the caller's close");
        c.close("g", "m");
        assertEquals(List.of("g/m"), shares.released);
        assertEquals(Errors.SHARE_SESSION_NOT_FOUND, c.acknowledge("g", "m", 3));
    }

    @Test
    void fetch_limitReached_unlessAnIdleSessionCanGo() {
        ShareSessionCache c = cache(2);
        c.fetch("g", "a", 0, List.of(), List.of(), false);
        now.addAndGet(30_000);
        c.fetch("g", "b", 0, List.of(), List.of(), false);
        assertEquals(Errors.SHARE_SESSION_LIMIT_REACHED, c.fetch("g", "c", 0, List.of(), List.of(), false).error());
        assertEquals(Errors.NONE, c.fetch("g", "a", 0, List.of(), List.of(), false).error(),
                "a member replacing its own session needs no new slot");
        now.addAndGet(60_001);
        c.fetch("g", "b", 1, List.of(), List.of(), false); // b in use, a idle since the replacement
        assertEquals(Errors.NONE, c.fetch("g", "c", 0, List.of(), List.of(), false).error());
        assertNull(c.expectedEpoch("g", "a"));
        assertEquals(List.of("g/a"), shares.released);
        assertEquals(2, c.size());
    }

    @Test
    void expireIdle_closesOnlySessionsUnusedForLongerThanTheBound() {
        ShareSessionCache c = cache(10);
        c.fetch("g", "a", 0, List.of(), List.of(), false);
        c.fetch("g", "b", 0, List.of(), List.of(), false);
        now.addAndGet(60_000);
        assertEquals(Errors.NONE, c.acknowledge("g", "b", 1)); // an acknowledgement is a use too
        assertEquals(0, c.expireIdle(), "exactly the bound is not over it");
        now.addAndGet(1);
        assertEquals(1, c.expireIdle());
        assertEquals(List.of("g/a"), shares.released);
        assertEquals(2, c.expectedEpoch("g", "b"));
    }

    @Test
    void memberLeft_closesItsSessionAndReleases_nothingWithoutASession() {
        ShareSessionCache c = cache(10);
        c.fetch("g", "m", 0, List.of(P0), List.of(), false);
        c.memberLeft("g", "other");
        c.memberLeft("g", "m");
        assertEquals(List.of("g/m"), shares.released);
        assertEquals(Errors.SHARE_SESSION_NOT_FOUND, c.fetch("g", "m", 1, List.of(), List.of(), false).error());
    }

    @Test
    void idleMs_longerOfMaxSessionTimeoutAndMaxLockDuration() {
        assertEquals(60_000, ShareSessionCache.idleMs(ShareGroupConfig.defaults()));
        assertEquals(90_000, ShareSessionCache.idleMs(ShareGroupConfig.fromProperties(Map.of(
                ShareGroupConfig.MAX_RECORD_LOCK_DURATION_MS_CONFIG, "90000"))));
    }
}

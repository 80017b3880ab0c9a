package io.aloft.broker.security;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.aloft.controller.model.ClusterImage;
import io.aloft.controller.model.FeatureLevel;
import io.aloft.controller.model.MetadataEvent;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.common.errors.UnsupportedVersionException;
import org.junit.jupiter.api.Test;

class SecurityMetadataTest {

    @Test
    void writesAreRefusedBelowTheSecurityLevel_namingTheLevel() {
        SecurityMetadata security = new SecurityMetadata(null, () -> FeatureLevel.RACK_AWARE_PLACEMENT);
        ExecutionException e = assertThrows(ExecutionException.class,
                () -> security.put("security/acl/x", new byte[0]).get());
        assertInstanceOf(UnsupportedVersionException.class, e.getCause());
        assertTrue(e.getCause().getMessage().contains("level " + FeatureLevel.SECURITY_METADATA), e.getMessage());
    }

    @Test
    void onlySecurityKeysCanBeChanged() {
        assertThrows(IllegalArgumentException.class, () -> SecurityMetadata.Change.put("config/x", new byte[0]));
    }

    @Test
    void anOlderEventDoesNotUndoOurCommittedWrite_untilTheFeedDeliversIt() {
        long[] now = {0};
        SecurityMetadata security = new SecurityMetadata(null, () -> FeatureLevel.SECURITY_METADATA, () -> now[0]);
        security.onEvent(MetadataEvent.kvChanged(1, "security/u", new byte[] {1}));
        security.committed(List.of(SecurityMetadata.Change.delete("security/u")));
        assertTrue(security.entries("security/").isEmpty());
        // The feed still delivers an older put of the key (another broker's, or ours before the delete).
        security.onEvent(MetadataEvent.kvChanged(2, "security/u", new byte[] {2}));
        assertTrue(security.entries("security/").isEmpty(), "an older event undid our delete");
        security.onEvent(MetadataEvent.kvChanged(3, "security/u", null)); // our delete, delivered
        security.onEvent(MetadataEvent.kvChanged(4, "security/u", new byte[] {4})); // a later change
        assertArrayEquals(new byte[] {4}, security.entries("security/").get("security/u"));
    }

    @Test
    void aWriteTheFeedNeverDeliversStopsMaskingAfterTheTimeout() {
        long[] now = {0};
        SecurityMetadata security = new SecurityMetadata(null, () -> FeatureLevel.SECURITY_METADATA, () -> now[0]);
        security.committed(List.of(SecurityMetadata.Change.put("security/u", new byte[] {1})));
        security.onImage(new ClusterImage(9, List.of(), List.of(), FeatureLevel.SECURITY_METADATA,
                new TreeMap<>(Map.of("security/u", new byte[] {2}))));
        assertArrayEquals(new byte[] {1}, security.entries("security/").get("security/u"));
        now[0] += TimeUnit.SECONDS.toNanos(31);
        security.onEvent(MetadataEvent.kvChanged(10, "security/other", new byte[] {0}));
        assertArrayEquals(new byte[] {2}, security.entries("security/").get("security/u"));
    }

    @Test
    void anImageHoldingOurWriteEndsItsPendingState() {
        long[] now = {0};
        SecurityMetadata security = new SecurityMetadata(null, () -> FeatureLevel.SECURITY_METADATA, () -> now[0]);
        security.committed(List.of(SecurityMetadata.Change.put("security/u", new byte[] {1})));
        security.onImage(new ClusterImage(9, List.of(), List.of(), FeatureLevel.SECURITY_METADATA,
                new TreeMap<>(Map.of("security/u", new byte[] {1}))));
        security.onEvent(MetadataEvent.kvChanged(10, "security/u", new byte[] {5})); // another broker, later
        assertArrayEquals(new byte[] {5}, security.entries("security/").get("security/u"));
    }

    @Test
    void ourWriteDeliveredBeforeItsCommitAnswered_leavesNoOverlay_soALaterDeleteShows() {
        long[] now = {0};
        SecurityMetadata security = new SecurityMetadata(null, () -> FeatureLevel.SECURITY_METADATA, () -> now[0]);
        java.util.Map<String, Long> seenAtSubmit = java.util.Map.of("security/u", 0L);
        // The watcher delivers our put, then another broker's delete, before our commit is answered.
        security.onEvent(MetadataEvent.kvChanged(1, "security/u", new byte[] {7}));
        security.onEvent(MetadataEvent.kvChanged(2, "security/u", null));
        security.committed(List.of(SecurityMetadata.Change.put("security/u", new byte[] {7})), seenAtSubmit);
        assertTrue(security.entries("security/").isEmpty(), "a stale overlay hid the later delete");
    }
}

package io.aloft.controller.state;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.aloft.controller.command.DeleteKv;
import io.aloft.controller.command.PutKv;
import io.aloft.controller.command.ReportVoterFeatures;
import io.aloft.controller.command.UpdateFeatureLevel;
import io.aloft.controller.model.FeatureLevel;
import io.aloft.controller.model.FeatureRange;
import io.aloft.controller.model.MetadataEvent;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Security entries of the key-value space reach watchers from their feature level on, and only they do. */
class SecurityEntriesStateTest extends StateTestSupport {

    private void upgradeToSecurityLevel() {
        ok(new ReportVoterFeatures(1, new FeatureRange(1, FeatureLevel.SECURITY_METADATA), List.of()));
        ok(new UpdateFeatureLevel(FeatureLevel.SECURITY_METADATA, List.of(1)));
        events.clear();
    }

    @Test
    void putsAndDeletesOfSecurityKeysAreEvents_otherKeysAndNoOpDeletesAreNot() {
        upgradeToSecurityLevel();
        ok(new PutKv("security/acl/x", new byte[] {1}));
        ok(new PutKv("config/broker/default/a", new byte[] {2}));
        ok(new DeleteKv("security/never-written"));
        ok(new DeleteKv("security/acl/x"));
        assertEquals(2, events.size(), events.toString());
        MetadataEvent put = events.get(0);
        assertEquals("security/acl/x", put.kvKey());
        assertArrayEquals(new byte[] {1}, put.kvValue());
        assertEquals(index - 3, put.index());
        MetadataEvent delete = events.get(1);
        assertEquals("security/acl/x", delete.kvKey());
        assertNull(delete.kvValue());
        assertEquals(index, delete.index());
    }

    @Test
    void theImageCarriesExactlyTheSecurityEntries() {
        upgradeToSecurityLevel();
        ok(new PutKv("security/scram/alice/SCRAM-SHA-256", new byte[] {7}));
        ok(new PutKv("security/quota/u", new byte[] {8}));
        ok(new PutKv("securityz", new byte[] {9}));
        ok(new PutKv("other", new byte[] {9}));
        var entries = state.image(index).securityEntries();
        assertEquals(Set.of("security/scram/alice/SCRAM-SHA-256", "security/quota/u"), entries.keySet());
        assertArrayEquals(new byte[] {7}, entries.get("security/scram/alice/SCRAM-SHA-256"));
    }

    @Test
    void belowTheLevelEntriesAreStoredButNotPublished() {
        ok(new PutKv("security/acl/x", new byte[] {1}));
        assertEquals(List.of(), events);
        assertEquals(0, state.image(index).securityEntries().size());
        // Stored like any key (every build applies PutKv alike), and published in images once upgraded.
        upgradeToSecurityLevel();
        assertEquals(Set.of("security/acl/x"), state.image(index).securityEntries().keySet());
    }
}

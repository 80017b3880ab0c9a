package io.aloft.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class UnknownKeysTest {
    private static final Set<String> KNOWN = Set.of("wal.capacity.bytes", "wal.path", "log.retention.hours",
            "controller.quorum.voters", "s3.log.cache.size.bytes");

    @Test
    void warnings_nameEachUnknownKey_withTheClosestKnownOne() {
        assertEquals(List.of(
                "Unknown configuration key 'controler.quorum.voters' is ignored; "
                        + "did you mean 'controller.quorum.voters'?",
                "Unknown configuration key 'log.dirs' is ignored (no Aloft module reads it)",
                "Unknown configuration key 'wal.capacity.byte' is ignored; did you mean 'wal.capacity.bytes'?"),
                UnknownKeys.warnings(List.of("wal.path", "wal.capacity.byte", "log.dirs", "controler.quorum.voters"),
                        KNOWN));
    }

    @Test
    void closest_typosAndMissingUnits_nothingForDistantKeys() {
        assertEquals("log.retention.hours", UnknownKeys.closest("log.retension.hours", KNOWN));
        assertEquals("log.retention.hours", UnknownKeys.closest("log.retention.huors", KNOWN), "transposition");
        assertEquals("s3.log.cache.size.bytes", UnknownKeys.closest("s3.log.cache.size", KNOWN));
        assertNull(UnknownKeys.closest("num.io.threads", KNOWN));
    }
}

package io.aloft.autoscaler.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class UnitsTest {

    @Test
    void parseSize_binaryDecimalAndPlain() {
        assertEquals(50.0 * 1024 * 1024, Units.parseSize("50MiB"));
        assertEquals(40e6, Units.parseSize("40MB"));
        assertEquals(1.5 * (1L << 30), Units.parseSize("1.5GiB/s"));
        assertEquals(2048, Units.parseSize("2 KiB"));
        assertEquals(1048576, Units.parseSize("1048576"));
        assertEquals(7, Units.parseSize("7B"));
        assertEquals(-5, Units.parseSize("-5"));
    }

    @Test
    void parseSize_unknownUnitOrText_isRefused() {
        assertEquals("unknown size unit 'MiBs' (B, KB, MB, GB, TB, KiB, MiB, GiB, TiB), was '5MiBs'",
                assertThrows(IllegalArgumentException.class, () -> Units.parseSize("5MiBs")).getMessage());
        assertThrows(IllegalArgumentException.class, () -> Units.parseSize("lots"));
    }

    @Test
    void parseDuration_shortAndIso() {
        assertEquals(Duration.ofSeconds(30), Units.parseDuration("30s"));
        assertEquals(Duration.ofMinutes(5), Units.parseDuration("5m"));
        assertEquals(Duration.ofMillis(500), Units.parseDuration("500ms"));
        assertEquals(Duration.ofHours(10), Units.parseDuration("10h"));
        assertEquals(Duration.ofDays(1), Units.parseDuration("1d"));
        assertEquals(Duration.ofMillis(1500), Units.parseDuration("1.5s"));
        assertEquals(Duration.ofSeconds(30), Units.parseDuration("PT30S"));
    }

    @Test
    void parseDuration_bareNumberOrBadIso_isRefused() {
        assertThrows(IllegalArgumentException.class, () -> Units.parseDuration("30"));
        assertThrows(IllegalArgumentException.class, () -> Units.parseDuration("PT30X"));
        assertThrows(IllegalArgumentException.class, () -> Units.parseDuration("30 sec"));
    }

    @Test
    void formatRate_picksAUnit() {
        assertEquals("40.0 MiB/s", Units.formatRate(40 << 20));
        assertEquals("1.50 GiB/s", Units.formatRate(1.5 * (1L << 30)));
        assertEquals("512 B/s", Units.formatRate(512));
    }
}

package io.aloft.autoscaler.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.Optional;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

class ScheduledRuleTest {

    /** Weekdays 08:00 Paris time for 10 hours; 2026-11-30 is a Monday, Paris is UTC+1 then. */
    private static final ScheduledRule OFFICE_HOURS = new ScheduledRule("0 8 * * MON-FRI",
            ZoneId.of("Europe/Paris"), OptionalInt.of(4), OptionalInt.empty(), Duration.ofHours(10));

    @Test
    void openedAt_insideTheWindow_inItsTimezone() {
        assertEquals(Optional.of(Instant.parse("2026-11-30T07:00:00Z")),
                OFFICE_HOURS.openedAt(Instant.parse("2026-11-30T07:00:00Z")));
        assertEquals(Optional.of(Instant.parse("2026-11-30T07:00:00Z")),
                OFFICE_HOURS.openedAt(Instant.parse("2026-11-30T07:00:30Z")));
        assertTrue(OFFICE_HOURS.isOpen(Instant.parse("2026-11-30T16:59:59Z")));
    }

    @Test
    void isOpen_outsideTheWindow_false() {
        assertFalse(OFFICE_HOURS.isOpen(Instant.parse("2026-11-30T06:59:59Z")), "before 08:00 Paris");
        assertFalse(OFFICE_HOURS.isOpen(Instant.parse("2026-11-30T17:00:00Z")), "18:00 Paris: closed");
        assertFalse(OFFICE_HOURS.isOpen(Instant.parse("2026-12-05T10:00:00Z")), "Saturday");
        assertTrue(OFFICE_HOURS.isOpen(Instant.parse("2026-12-04T10:00:00Z")), "Friday");
    }

    @Test
    void isOpen_sameCronInUtc_opensAnHourLater() {
        ScheduledRule utc = new ScheduledRule("0 8 * * MON-FRI", ZoneOffset.UTC, OptionalInt.of(4),
                OptionalInt.empty(), Duration.ofHours(10));
        assertFalse(utc.isOpen(Instant.parse("2026-11-30T07:30:00Z")));
        assertTrue(utc.isOpen(Instant.parse("2026-11-30T08:00:00Z")));
        assertTrue(utc.isOpen(Instant.parse("2026-11-30T17:30:00Z")));
    }

    @Test
    void isOpen_summerTime_followsTheZone() {
        // 2026-07-06 is a Monday; Paris is UTC+2 in July.
        assertTrue(OFFICE_HOURS.isOpen(Instant.parse("2026-07-06T06:00:00Z")));
        assertFalse(OFFICE_HOURS.isOpen(Instant.parse("2026-07-06T05:59:00Z")));
    }

    @Test
    void parseCron_malformed_isAlwaysAnIllegalArgument() {
        for (String bad : new String[] {"", " ", "* * * * * *", "@daily", "0 8 * * FOO", "a b c d e", "0 25 * * *",
                "*/0 * * * *", "0 8 31 2 *x", "0-99 * * * *", "0 8 * JANUARY *"}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> ScheduledRule.parseCron(bad), "'" + bad + "'");
            assertTrue(e.getMessage().startsWith("not a 5-field Unix cron expression"), e.getMessage());
        }
    }

    @Test
    void isOpen_cronThatNeverFires_isNeverOpen() {
        ScheduledRule february31 = new ScheduledRule("0 0 31 2 *", ZoneOffset.UTC, OptionalInt.of(2),
                OptionalInt.empty(), Duration.ofDays(1));
        assertFalse(february31.isOpen(Instant.parse("2026-03-01T00:00:00Z")));
    }

    @Test
    void constructor_badCron_isRefused() {
        assertThrows(IllegalArgumentException.class, () -> new ScheduledRule("0 8 * * MON-FRI *", ZoneOffset.UTC,
                OptionalInt.of(1), OptionalInt.empty(), Duration.ofHours(1)));
        assertThrows(IllegalArgumentException.class, () -> new ScheduledRule("61 8 * * *", ZoneOffset.UTC,
                OptionalInt.of(1), OptionalInt.empty(), Duration.ofHours(1)));
    }
}

package io.aloft.autoscaler.policy;

import com.cronutils.model.Cron;
import com.cronutils.model.CronType;
import com.cronutils.model.definition.CronDefinition;
import com.cronutils.model.definition.CronDefinitionBuilder;
import com.cronutils.model.time.ExecutionTime;
import com.cronutils.parser.CronParser;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.time.temporal.ChronoUnit;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * {@code scaling.scheduled[i]}: planned capacity. A window opens each time the 5-field Unix cron
 * expression fires in {@code timezone} and stays open for {@code duration}; while open, the
 * cluster's bounds are narrowed to this window's {@code minBrokers} and/or {@code maxBrokers}
 * (e.g. {@code cron: "0 8 * * MON-FRI"}, {@code duration: 10h}, {@code minBrokers: 4}).
 *
 * <p>Immutable; the parsed cron is rebuilt per call ({@link #openedAt}), cheap at one evaluation
 * per interval, which keeps this a plain record.
 *
 * @param cron 5-field Unix cron expression (minute hour day-of-month month day-of-week)
 * @param timezone the zone the expression is read in (default UTC)
 * @param minBrokers the window's minimum, if any
 * @param maxBrokers the window's maximum, if any (at least one of the two is present)
 * @param duration how long each window stays open (positive)
 */
public record ScheduledRule(
        String cron,
        ZoneId timezone,
        OptionalInt minBrokers,
        OptionalInt maxBrokers,
        Duration duration) {

    /** Immutable; a parser is made per parse since cron-utils does not document its parser as thread-safe. */
    private static final CronDefinition UNIX = CronDefinitionBuilder.instanceDefinitionFor(CronType.UNIX);

    public ScheduledRule {
        Objects.requireNonNull(cron, "cron");
        Objects.requireNonNull(timezone, "timezone");
        Objects.requireNonNull(minBrokers, "minBrokers");
        Objects.requireNonNull(maxBrokers, "maxBrokers");
        Objects.requireNonNull(duration, "duration");
        parseCron(cron);
    }

    /**
     * When the window open at {@code now} opened, or empty when none is open: the latest firing at
     * or before {@code now} (cron has minute resolution), if {@code now} is before it plus the duration.
     */
    public Optional<Instant> openedAt(Instant now) {
        ExecutionTime times = ExecutionTime.forCron(parseCron(cron));
        ZonedDateTime local = now.atZone(timezone);
        ZonedDateTime minute = local.truncatedTo(ChronoUnit.MINUTES);
        Optional<ZonedDateTime> start = times.isMatch(minute) ? Optional.of(minute) : times.lastExecution(local);
        return start.map(ZonedDateTime::toInstant)
                .filter(s -> !now.isBefore(s) && now.isBefore(s.plus(duration)));
    }

    /** Whether a window is open at {@code now}. */
    public boolean isOpen(Instant now) {
        return openedAt(now).isPresent();
    }

    /**
     * Parses a 5-field Unix cron expression.
     *
     * @throws IllegalArgumentException naming what is wrong with it
     */
    static Cron parseCron(String expression) {
        try {
            Cron parsed = new CronParser(UNIX).parse(expression);
            parsed.validate();
            return parsed;
        } catch (RuntimeException e) {
            // cron-utils reports most mistakes as IllegalArgumentException, but not all of them.
            throw new IllegalArgumentException("not a 5-field Unix cron expression ("
                    + e.getMessage() + "), was '" + expression + "'");
        }
    }
}

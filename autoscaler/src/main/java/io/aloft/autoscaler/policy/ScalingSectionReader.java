package io.aloft.autoscaler.policy;

import java.time.DateTimeException;
import java.time.Duration;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalInt;

/**
 * Reads the {@code scaling} section for {@link PolicyLoader}: target-tracking, step, scheduled and
 * emergency rules, cooldowns and scale-in protection, each value checked where it is read so the
 * error names its path. Metric values are read in the metric's unit: sizes ("40MiB") for byte
 * rates, fractions (0.7) or percentages ("70%") for CPU.
 *
 * <p>Confined to the loading thread (one instance per load).
 */
final class ScalingSectionReader {

    private final int minBrokers;
    private final int maxBrokers;

    /** @param minBrokers, maxBrokers the policy's bounds, which scheduled windows must respect */
    ScalingSectionReader(int minBrokers, int maxBrokers) {
        this.minBrokers = minBrokers;
        this.maxBrokers = maxBrokers;
    }

    ScalingPolicy read(Section s) {
        List<TargetTrackingRule> targetTracking = new ArrayList<>();
        for (Section rule : s.list("targetTracking")) {
            targetTracking(rule).ifPresent(targetTracking::add);
        }
        List<StepRule> step = new ArrayList<>();
        for (Section rule : s.list("step")) {
            step(rule).ifPresent(step::add);
        }
        List<ScheduledRule> scheduled = new ArrayList<>();
        for (Section rule : s.list("scheduled")) {
            scheduled(rule).ifPresent(scheduled::add);
        }
        Optional<EmergencyRule> emergency = s.has("emergency") ? emergency(s.section("emergency")) : Optional.empty();

        Section c = s.section("cooldown");
        ScalingPolicy.Cooldown cooldown = new ScalingPolicy.Cooldown(
                PolicyLoader.nonNegativeDuration(c, "scaleOut", ScalingPolicy.Cooldown.DEFAULTS.scaleOut()),
                PolicyLoader.nonNegativeDuration(c, "scaleIn", ScalingPolicy.Cooldown.DEFAULTS.scaleIn()));
        c.finish();
        Section in = s.section("scaleIn");
        ScalingPolicy.ScaleIn scaleIn = new ScalingPolicy.ScaleIn(
                in.bool("enabled").orElse(ScalingPolicy.ScaleIn.DEFAULTS.enabled()),
                PolicyLoader.nonNegativeDuration(in, "stabilizationWindow",
                        ScalingPolicy.ScaleIn.DEFAULTS.stabilizationWindow()));
        in.finish();
        s.finish();
        return new ScalingPolicy(targetTracking, step, scheduled, emergency, cooldown, scaleIn);
    }

    private Optional<TargetTrackingRule> targetTracking(Section s) {
        Optional<Metric> metric = metric(s);
        OptionalDouble target = OptionalDouble.empty();
        if (!s.has("target")) {
            s.error("target", "required");
        } else if (metric.isPresent()) {
            target = metricValue(s, "target", metric.get());
            if (target.isPresent() && target.getAsDouble() <= 0) {
                s.error("target", "must be > 0, was " + Units.formatNumber(target.getAsDouble()));
                target = OptionalDouble.empty();
            }
        }
        double threshold = PolicyLoader.percent(s, "scaleInThresholdPercent",
                TargetTrackingRule.DEFAULT_SCALE_IN_THRESHOLD_PERCENT);
        s.finish();
        if (metric.isEmpty() || target.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(new TargetTrackingRule(metric.get(), target.getAsDouble(), threshold));
    }

    private Optional<StepRule> step(Section s) {
        Optional<Metric> metric = metric(s);
        List<Section> items = s.list("thresholds");
        if (items.isEmpty()) {
            s.error("thresholds", "required: at least one {lowerBound, upperBound, adjustment}");
        }
        List<StepRule.Threshold> thresholds = new ArrayList<>();
        List<String> paths = new ArrayList<>();
        boolean valid = metric.isPresent();
        for (Section t : items) {
            OptionalDouble lower = t.has("lowerBound") && metric.isPresent()
                    ? metricValue(t, "lowerBound", metric.get()) : OptionalDouble.empty();
            OptionalDouble upper = t.has("upperBound") && metric.isPresent()
                    ? metricValue(t, "upperBound", metric.get()) : OptionalDouble.empty();
            Optional<Integer> adjustment = t.integer("adjustment");
            if (!t.has("adjustment")) {
                t.error("adjustment", "required (+N or -N brokers)");
            } else if (adjustment.isPresent() && adjustment.get() == 0) {
                t.error("adjustment", "must not be 0");
                adjustment = Optional.empty();
            }
            if (lower.isPresent() && upper.isPresent() && lower.getAsDouble() >= upper.getAsDouble()) {
                t.error("upperBound", "must be > lowerBound (" + Units.formatNumber(lower.getAsDouble())
                        + "), was " + Units.formatNumber(upper.getAsDouble()));
                adjustment = Optional.empty();
            }
            t.finish();
            if (adjustment.isEmpty() || (t.has("lowerBound") && lower.isEmpty())
                    || (t.has("upperBound") && upper.isEmpty())) {
                valid = false;
                continue;
            }
            thresholds.add(new StepRule.Threshold(lower, upper, adjustment.get()));
            paths.add(t.path());
        }
        s.finish();
        if (!valid) {
            return Optional.empty();
        }
        List<Integer> order = new ArrayList<>();
        for (int i = 0; i < thresholds.size(); i++) {
            order.add(i);
        }
        order.sort(Comparator.comparingDouble(i -> thresholds.get(i).lower()));
        for (int k = 1; k < order.size(); k++) {
            StepRule.Threshold a = thresholds.get(order.get(k - 1));
            StepRule.Threshold b = thresholds.get(order.get(k));
            if (a.upper() > b.lower()) {
                s.error("thresholds", "ranges overlap: " + paths.get(order.get(k - 1)) + " " + range(a)
                        + " and " + paths.get(order.get(k)) + " " + range(b));
                valid = false;
            }
        }
        return valid ? Optional.of(new StepRule(metric.get(), order.stream().map(thresholds::get).toList()))
                : Optional.empty();
    }

    private Optional<ScheduledRule> scheduled(Section s) {
        Optional<String> cron = Optional.empty();
        if (!s.has("cron")) {
            s.error("cron", "required (5-field Unix cron, e.g. \"0 8 * * MON-FRI\")");
        } else {
            cron = s.parsed("cron", text -> {
                ScheduledRule.parseCron(text);
                return text;
            });
        }
        ZoneId zone = s.parsed("timezone", text -> {
            try {
                return ZoneId.of(text);
            } catch (DateTimeException e) {
                throw new IllegalArgumentException("unknown time zone '" + text + "' (e.g. UTC, Europe/Paris)");
            }
        }).orElse(ZoneOffset.UTC);
        Optional<Integer> min = s.integer("minBrokers");
        Optional<Integer> max = s.integer("maxBrokers");
        boolean valid = cron.isPresent();
        if (!s.has("minBrokers") && !s.has("maxBrokers")) {
            s.error("minBrokers and/or maxBrokers required");
            valid = false;
        }
        if (min.isPresent() && (min.get() < 1 || min.get() > maxBrokers)) {
            s.error("minBrokers", "must be in [1, maxBrokers (" + maxBrokers + ")], was " + min.get());
            valid = false;
        }
        if (max.isPresent() && max.get() < minBrokers) {
            s.error("maxBrokers", "must be >= minBrokers (" + minBrokers + "), was " + max.get());
            valid = false;
        }
        if (min.isPresent() && max.isPresent() && min.get() > max.get()) {
            s.error("maxBrokers", "must be >= this window's minBrokers (" + min.get() + "), was " + max.get());
            valid = false;
        }
        Duration duration = null;
        if (!s.has("duration")) {
            s.error("duration", "required (how long each window stays open, e.g. 10h)");
        } else {
            duration = PolicyLoader.positiveDuration(s, "duration", null);
        }
        s.finish();
        if (!valid || duration == null || (s.has("minBrokers") && min.isEmpty())
                || (s.has("maxBrokers") && max.isEmpty())) {
            return Optional.empty();
        }
        return Optional.of(new ScheduledRule(cron.get(), zone,
                min.map(OptionalInt::of).orElse(OptionalInt.empty()),
                max.map(OptionalInt::of).orElse(OptionalInt.empty()), duration));
    }

    private Optional<EmergencyRule> emergency(Section s) {
        OptionalDouble waits = OptionalDouble.empty();
        Optional<Double> w = s.number("walFullWaitsPerSec");
        if (w.isPresent() && w.get() < 0) {
            s.error("walFullWaitsPerSec", "must be >= 0, was " + Units.formatNumber(w.get()));
        } else if (w.isPresent()) {
            waits = OptionalDouble.of(w.get());
        }
        OptionalDouble fill = OptionalDouble.empty();
        Optional<Double> f = s.number("walFillRatio");
        if (f.isPresent() && (f.get() <= 0 || f.get() > 1)) {
            s.error("walFillRatio", "must be in (0, 1], was " + Units.formatNumber(f.get()));
        } else if (f.isPresent()) {
            fill = OptionalDouble.of(f.get());
        }
        Optional<Duration> p99 = s.has("produceP99")
                ? Optional.ofNullable(PolicyLoader.positiveDuration(s, "produceP99", null)) : Optional.empty();
        int forEvaluations = PolicyLoader.intAtLeast(s, "for", EmergencyRule.DEFAULT_FOR_EVALUATIONS, 1);
        int add = PolicyLoader.intAtLeast(s, "add", EmergencyRule.DEFAULT_ADD, 1);
        boolean anyThreshold = s.has("walFullWaitsPerSec") || s.has("walFillRatio") || s.has("produceP99");
        if (!anyThreshold) {
            s.error("at least one of walFullWaitsPerSec, walFillRatio, produceP99 required");
        }
        s.finish();
        if (waits.isEmpty() && fill.isEmpty() && p99.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(new EmergencyRule(waits, fill, p99, forEvaluations, add));
    }

    private static Optional<Metric> metric(Section s) {
        if (!s.has("metric")) {
            s.error("metric", "required (" + Metric.names() + ")");
            return Optional.empty();
        }
        Optional<String> name = s.string("metric");
        Optional<Metric> metric = name.flatMap(Metric::byYamlName);
        if (name.isPresent() && metric.isEmpty()) {
            s.error("metric", "must be one of " + Metric.names() + ", was '" + name.get() + "'");
        }
        return metric;
    }

    /** A value of {@code metric}: a size for byte rates, a fraction or percentage for CPU. */
    private static OptionalDouble metricValue(Section s, String key, Metric metric) {
        Optional<Double> value = metric.isByteRate() ? s.size(key) : s.parsed(key, ScalingSectionReader::fraction);
        return value.map(OptionalDouble::of).orElse(OptionalDouble.empty());
    }

    private static double fraction(String text) {
        String t = text.trim();
        try {
            if (t.endsWith("%")) {
                return Double.parseDouble(t.substring(0, t.length() - 1).trim()) / 100;
            }
            double value = Double.parseDouble(t);
            if (value > 1) {
                throw new IllegalArgumentException("a CPU value is a fraction of the machine (0.7) or a"
                        + " percentage (\"70%\"), was " + t);
            }
            return value;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("not a CPU fraction (0.7) or percentage (\"70%\"), was '" + t + "'");
        }
    }

    private static String range(StepRule.Threshold t) {
        return String.format(Locale.ROOT, "[%s, %s)", t.lowerBound().isPresent()
                ? Units.formatNumber(t.lower()) : "-inf", t.upperBound().isPresent()
                ? Units.formatNumber(t.upper()) : "+inf");
    }
}

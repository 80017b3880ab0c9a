package io.aloft.autoscaler.policy;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Reads a YAML policy file into a validated {@link Policy}. Strict: an unknown key is an error
 * naming it, a duplicate key is an error, and every problem in the file is collected before one
 * {@link PolicyException} reports them all, each prefixed by its field's path. The scaling section
 * is read by {@link ScalingSectionReader}; the reference of every key is {@code autoscaler/POLICY.md}.
 *
 * <p>Stateless and thread-safe; no I/O beyond reading the file in {@link #load(Path)}.
 */
public final class PolicyLoader {

    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory())
            .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION);

    private PolicyLoader() {
    }

    /** Reads and validates the policy file at {@code file} (UTF-8). */
    public static Policy load(Path file) throws IOException, PolicyException {
        return parse(Files.readString(file, StandardCharsets.UTF_8));
    }

    /** Parses and validates a policy from its YAML text. */
    public static Policy parse(String yaml) throws PolicyException {
        JsonNode root;
        try {
            root = YAML.readTree(yaml);
        } catch (JsonProcessingException e) {
            throw new PolicyException(List.of("(file): not valid YAML: " + e.getOriginalMessage()
                    + (e.getLocation() == null ? "" : " at line " + e.getLocation().getLineNr())));
        }
        List<String> errors = new ArrayList<>();
        if (root != null && !root.isMissingNode() && !root.isNull() && !root.isObject()) {
            throw new PolicyException(List.of("(top level): must be a mapping of keys to values"));
        }
        Section top = new Section("", root, errors);
        Duration interval = positiveDuration(top, "interval", Policy.DEFAULT_INTERVAL);
        int minBrokers = intAtLeast(top, "minBrokers", Policy.DEFAULT_MIN_BROKERS, 1);
        int maxBrokers = minBrokers;
        if (!top.has("maxBrokers")) {
            top.error("maxBrokers", "required");
        } else {
            Optional<Integer> max = top.integer("maxBrokers");
            if (max.isPresent() && max.get() < minBrokers) {
                top.error("maxBrokers", "must be >= minBrokers (" + minBrokers + "), was " + max.get());
            } else if (max.isPresent()) {
                maxBrokers = max.get();
            }
        }
        BalancingPolicy balancing = balancing(top.section("balancing"));
        ExecutionPolicy execution = execution(top.section("execution"));
        ScalingPolicy scaling = new ScalingSectionReader(minBrokers, maxBrokers).read(top.section("scaling"));
        Optional<BackendPolicy> backend = backend(top.section("backend"));
        if (backend.isEmpty() && scaling.hasRules() && !top.has("backend")) {
            top.error("backend", "required when scaling rules are configured");
        }
        MetricsPolicy metrics = metrics(top.section("metrics"));
        top.finish();
        if (!errors.isEmpty()) {
            throw new PolicyException(errors);
        }
        return new Policy(interval, minBrokers, maxBrokers, balancing, execution, scaling, backend, metrics);
    }

    private static BalancingPolicy balancing(Section s) {
        BalancingPolicy d = BalancingPolicy.DEFAULTS;
        BalancingPolicy result = new BalancingPolicy(
                s.bool("enabled").orElse(d.enabled()),
                s.bool("dryRun").orElse(d.dryRun()),
                percent(s, "networkBandPercent", d.networkBandPercent()),
                nonNegativeSize(s, "trivialBrokerBytesPerSec", d.trivialBrokerBytesPerSec()),
                nonNegativeSize(s, "minMoveBytesPerSec", d.minMoveBytesPerSec()),
                percent(s, "partitionCountBandPercent", d.partitionCountBandPercent()),
                s.bool("rackAware").orElse(d.rackAware()),
                positiveDuration(s, "slowBrokerWalP99", d.slowBrokerWalP99()),
                intAtLeast(s, "maxMovesPerPlan", d.maxMovesPerPlan(), 1));
        s.finish();
        return result;
    }

    private static ExecutionPolicy execution(Section s) {
        ExecutionPolicy d = ExecutionPolicy.DEFAULTS;
        ExecutionPolicy result = new ExecutionPolicy(
                intAtLeast(s, "maxConcurrentMovesPerBroker", d.maxConcurrentMovesPerBroker(), 1),
                nonNegativeDuration(s, "pauseBetweenBatches", d.pauseBetweenBatches()),
                intAtLeast(s, "maxMovesPerRun", d.maxMovesPerRun(), 1),
                positiveDuration(s, "moveTimeout", d.moveTimeout()));
        s.finish();
        return result;
    }

    private static Optional<BackendPolicy> backend(Section s) {
        if (!s.present()) {
            return Optional.empty();
        }
        Optional<String> type = s.string("type");
        BackendPolicy result = null;
        if (type.isEmpty()) {
            if (!s.has("type")) {
                s.error("type", "required (local or kubernetes)");
            }
        } else if (type.get().equals("local")) {
            Optional<String> dir = nonBlank(s, "clusterDir", true);
            Path script = nonBlank(s, "script", false).map(Path::of).orElse(BackendPolicy.Local.DEFAULT_SCRIPT);
            result = dir.map(d -> new BackendPolicy.Local(Path.of(d), script)).orElse(null);
        } else if (type.get().equals("kubernetes")) {
            String namespace = nonBlank(s, "namespace", false).orElse(BackendPolicy.Kubernetes.DEFAULT_NAMESPACE);
            Optional<String> statefulSet = nonBlank(s, "statefulSet", true);
            int offset = intAtLeast(s, "nodeIdOffset", 0, 0);
            Optional<Path> kubeconfig = nonBlank(s, "kubeconfig", false).map(Path::of);
            result = statefulSet.map(n -> new BackendPolicy.Kubernetes(namespace, n, offset, kubeconfig)).orElse(null);
        } else {
            s.error("type", "must be local or kubernetes, was '" + type.get() + "'");
        }
        s.finish();
        return Optional.ofNullable(result);
    }

    private static MetricsPolicy metrics(Section s) {
        Optional<String> template = s.string("urlTemplate");
        Optional<String> discover = s.string("discover");
        MetricsPolicy result = MetricsPolicy.DEFAULTS;
        if (template.isPresent() && discover.isPresent()) {
            s.error("urlTemplate and discover are exclusive: set one");
        } else if (template.isPresent()) {
            String t = template.get();
            if (!t.startsWith("http://") && !t.startsWith("https://")) {
                s.error("urlTemplate", "must start with http:// or https://, was '" + t + "'");
            } else if (!t.contains("{host}") && !t.contains("{id}")) {
                s.error("urlTemplate", "must contain {host} or {id} (one URL per broker), was '" + t + "'");
            } else {
                result = new MetricsPolicy(MetricsPolicy.Discovery.URL_TEMPLATE, template);
            }
        } else if (discover.isPresent() && !discover.get().equals("describeConfigs")) {
            s.error("discover", "must be describeConfigs, was '" + discover.get() + "'");
        }
        s.finish();
        return result;
    }

    // Typed readers shared with ScalingSectionReader: each reports a bad value and returns the default.

    static int intAtLeast(Section s, String key, int defaultValue, int min) {
        Optional<Integer> value = s.integer(key);
        if (value.isPresent() && value.get() < min) {
            s.error(key, "must be >= " + min + ", was " + value.get());
            return defaultValue;
        }
        return value.orElse(defaultValue);
    }

    static Duration positiveDuration(Section s, String key, Duration defaultValue) {
        Optional<Duration> value = s.duration(key);
        if (value.isPresent() && (value.get().isNegative() || value.get().isZero())) {
            s.error(key, "must be > 0, was " + value.get());
            return defaultValue;
        }
        return value.orElse(defaultValue);
    }

    static Duration nonNegativeDuration(Section s, String key, Duration defaultValue) {
        Optional<Duration> value = s.duration(key);
        if (value.isPresent() && value.get().isNegative()) {
            s.error(key, "must be >= 0, was " + value.get());
            return defaultValue;
        }
        return value.orElse(defaultValue);
    }

    static double percent(Section s, String key, double defaultValue) {
        Optional<Double> value = s.number(key);
        if (value.isPresent() && (value.get() <= 0 || value.get() > 100)) {
            s.error(key, "must be in (0, 100], was " + Units.formatNumber(value.get()));
            return defaultValue;
        }
        return value.orElse(defaultValue);
    }

    private static double nonNegativeSize(Section s, String key, double defaultValue) {
        Optional<Double> value = s.size(key);
        if (value.isPresent() && value.get() < 0) {
            s.error(key, "must be >= 0, was " + Units.formatNumber(value.get()));
            return defaultValue;
        }
        return value.orElse(defaultValue);
    }

    private static Optional<String> nonBlank(Section s, String key, boolean required) {
        if (!s.has(key)) {
            if (required) {
                s.error(key, "required");
            }
            return Optional.empty();
        }
        Optional<String> value = s.string(key);
        if (value.isPresent() && value.get().isBlank()) {
            s.error(key, "must not be blank");
            return Optional.empty();
        }
        return value;
    }
}

package io.aloft.omb.workload;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;

/**
 * One OpenMessaging Benchmark workload, with OMB's field names and meanings. Immutable; the
 * canonical constructor validates, so every instance (parsed or derived with a {@code with...}
 * method) is runnable.
 *
 * <p>Fields, as in OMB's {@code Workload} class:
 * <ul>
 *   <li>{@code name}: free text, also used (slugged) in topic names.</li>
 *   <li>{@code topics}, {@code partitionsPerTopic}: fresh topics created for the run.</li>
 *   <li>{@code messageSize}: bytes per message; the payload is that many random bytes unless
 *       {@code payloadFile} names a file, whose bytes are sent instead (resolved relative to the
 *       workload file).</li>
 *   <li>{@code subscriptionsPerTopic}: consumer groups reading each topic (0 = produce only);
 *       {@code consumerPerSubscription}: consumers in each; {@code producersPerTopic}.</li>
 *   <li>{@code producerRate}: messages per second over all producers together; 0 = as fast as
 *       possible.</li>
 *   <li>{@code consumerBacklogSizeGB} (GiB, may be fractional here): above 0, the test phase first
 *       builds a backlog this large with consumers paused, then drains it while producing;
 *       {@code backlogDrainRatio}: the share of the backlog that must be consumed for the drain to
 *       count as finished (1.0 = all of it, down to OMB's floor of 1000 messages).</li>
 *   <li>{@code testDurationMinutes}, {@code warmupDurationMinutes} (may be fractional).</li>
 *   <li>{@code keyDistributor}: {@code NO_KEY} (default), {@code KEY_ROUND_ROBIN},
 *       {@code RANDOM_NANO}.</li>
 *   <li>{@code hotPartitionShare} (Aloft extension, not in OMB): when above 0, that share of each
 *       producer's messages goes to partition 0 of its topic and the rest is spread round-robin
 *       over the other partitions; needs at least 2 partitions per topic.</li>
 * </ul>
 *
 * <p>Defaults follow OMB: {@code producerRate} 0, {@code keyDistributor} NO_KEY,
 * {@code consumerBacklogSizeGB} 0, {@code backlogDrainRatio} 1.0, {@code warmupDurationMinutes}
 * 1, {@code hotPartitionShare} 0. Where OMB would silently run a zero ({@code topics},
 * {@code partitionsPerTopic}, {@code messageSize}, {@code subscriptionsPerTopic},
 * {@code producersPerTopic}, {@code testDurationMinutes}, and {@code consumerPerSubscription} when
 * there are subscriptions) the field is required instead.
 */
public record Workload(
        String name,
        int topics,
        int partitionsPerTopic,
        int messageSize,
        String payloadFile,
        int subscriptionsPerTopic,
        int consumerPerSubscription,
        int producersPerTopic,
        int producerRate,
        double consumerBacklogSizeGB,
        double backlogDrainRatio,
        double testDurationMinutes,
        double warmupDurationMinutes,
        String keyDistributor,
        double hotPartitionShare) {

    private static final Set<String> FIELDS = Set.of("name", "topics", "partitionsPerTopic", "messageSize",
            "payloadFile", "subscriptionsPerTopic", "consumerPerSubscription", "producersPerTopic", "producerRate",
            "consumerBacklogSizeGB", "backlogDrainRatio", "testDurationMinutes", "warmupDurationMinutes",
            "keyDistributor", "hotPartitionShare");

    public Workload {
        check(name != null && !name.isBlank(), "name", "is missing");
        check(topics >= 1, "topics", "must be at least 1, got " + topics);
        check(partitionsPerTopic >= 1, "partitionsPerTopic", "must be at least 1, got " + partitionsPerTopic);
        check(messageSize >= 1, "messageSize", "must be at least 1, got " + messageSize);
        check(subscriptionsPerTopic >= 0, "subscriptionsPerTopic", "must be 0 or more, got " + subscriptionsPerTopic);
        check(subscriptionsPerTopic == 0 || consumerPerSubscription >= 1, "consumerPerSubscription",
                "must be at least 1 when there are subscriptions, got " + consumerPerSubscription);
        check(consumerPerSubscription >= 0, "consumerPerSubscription", "must be 0 or more");
        check(producersPerTopic >= 1, "producersPerTopic", "must be at least 1, got " + producersPerTopic);
        check(producerRate >= 0, "producerRate", "must be 0 (as fast as possible) or more, got " + producerRate);
        check(consumerBacklogSizeGB >= 0, "consumerBacklogSizeGB", "must be 0 or more, got " + consumerBacklogSizeGB);
        check(consumerBacklogSizeGB == 0 || subscriptionsPerTopic >= 1, "consumerBacklogSizeGB",
                "needs subscriptionsPerTopic of at least 1 (someone has to drain the backlog)");
        check(backlogDrainRatio >= 0 && backlogDrainRatio <= 1, "backlogDrainRatio",
                "must be between 0.0 and 1.0, got " + backlogDrainRatio);
        check(testDurationMinutes > 0, "testDurationMinutes", "must be above 0, got " + testDurationMinutes);
        check(warmupDurationMinutes >= 0, "warmupDurationMinutes", "must be 0 or more, got " + warmupDurationMinutes);
        keyDistributor = keyDistributor == null ? KeyDistributorType.NO_KEY.name() : keyDistributor;
        try {
            KeyDistributorType.valueOf(keyDistributor);
        } catch (IllegalArgumentException e) {
            throw new ConfigFileException("workload field 'keyDistributor' must be one of NO_KEY, KEY_ROUND_ROBIN, "
                    + "RANDOM_NANO, got '" + keyDistributor + "'");
        }
        check(hotPartitionShare >= 0 && hotPartitionShare <= 1, "hotPartitionShare",
                "must be between 0.0 and 1.0, got " + hotPartitionShare);
        check(hotPartitionShare == 0 || partitionsPerTopic >= 2, "hotPartitionShare",
                "needs partitionsPerTopic of at least 2");
    }

    /** The workload without the Aloft extension, in the contract's original shape. */
    public Workload(String name, int topics, int partitionsPerTopic, int messageSize, String payloadFile,
            int subscriptionsPerTopic, int consumerPerSubscription, int producersPerTopic, int producerRate,
            double consumerBacklogSizeGB, double backlogDrainRatio, double testDurationMinutes,
            double warmupDurationMinutes, String keyDistributor) {
        this(name, topics, partitionsPerTopic, messageSize, payloadFile, subscriptionsPerTopic,
                consumerPerSubscription, producersPerTopic, producerRate, consumerBacklogSizeGB, backlogDrainRatio,
                testDurationMinutes, warmupDurationMinutes, keyDistributor, 0.0);
    }

    private static void check(boolean ok, String field, String problem) {
        if (!ok) {
            throw new ConfigFileException("workload field '" + field + "' " + problem);
        }
    }

    /**
     * Reads a workload file. A relative {@code payloadFile} is resolved against the file's
     * directory and stored as an absolute path.
     */
    public static Workload load(Path file) {
        String yaml;
        try {
            yaml = Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new ConfigFileException("workload file " + file + ": cannot read: " + e.getMessage(), e);
        }
        Path dir = file.toAbsolutePath().getParent();
        return parse("workload file " + file, yaml, dir);
    }

    /** Parses workload YAML; a relative {@code payloadFile} stays relative to the working directory. */
    public static Workload parse(String yaml) {
        return parse("workload", yaml, null);
    }

    private static Workload parse(String what, String yaml, Path baseDir) {
        YamlFields f = YamlFields.parse(what, yaml);
        f.rejectUnknown(FIELDS);
        String payloadFile = f.string("payloadFile", null);
        if (payloadFile != null && baseDir != null && !Path.of(payloadFile).isAbsolute()) {
            payloadFile = baseDir.resolve(payloadFile).normalize().toString();
        }
        try {
            int subscriptions = f.requiredInt("subscriptionsPerTopic");
            return new Workload(
                    f.requiredString("name"),
                    f.requiredInt("topics"),
                    f.requiredInt("partitionsPerTopic"),
                    f.requiredInt("messageSize"),
                    payloadFile,
                    subscriptions,
                    subscriptions == 0 ? f.intValue("consumerPerSubscription", 0)
                            : f.requiredInt("consumerPerSubscription"),
                    f.requiredInt("producersPerTopic"),
                    f.intValue("producerRate", 0),
                    f.number("consumerBacklogSizeGB", 0),
                    f.number("backlogDrainRatio", 1.0),
                    f.requiredNumber("testDurationMinutes"),
                    f.number("warmupDurationMinutes", 1),
                    f.string("keyDistributor", KeyDistributorType.NO_KEY.name()),
                    f.number("hotPartitionShare", 0));
        } catch (ConfigFileException e) {
            if (e.getMessage().startsWith(what)) {
                throw e;
            }
            throw new ConfigFileException(what + ": " + e.getMessage(), e);
        }
    }

    public KeyDistributorType keyDistributorType() {
        return KeyDistributorType.valueOf(keyDistributor);
    }

    /** True when the test phase builds and drains a backlog. */
    public boolean backlogMode() {
        return consumerBacklogSizeGB > 0;
    }

    /** {@link #consumerBacklogSizeGB} in bytes (1 GB = 2^30 bytes, as OMB computes it). */
    public long backlogBytes() {
        return (long) (consumerBacklogSizeGB * (1L << 30));
    }

    /** This workload at another total producer rate (0 = as fast as possible). */
    public Workload withProducerRate(int rate) {
        return new Workload(name, topics, partitionsPerTopic, messageSize, payloadFile, subscriptionsPerTopic,
                consumerPerSubscription, producersPerTopic, rate, consumerBacklogSizeGB, backlogDrainRatio,
                testDurationMinutes, warmupDurationMinutes, keyDistributor, hotPartitionShare);
    }

    /** This workload with other phase lengths, in minutes. */
    public Workload withDurations(double testMinutes, double warmupMinutes) {
        return new Workload(name, topics, partitionsPerTopic, messageSize, payloadFile, subscriptionsPerTopic,
                consumerPerSubscription, producersPerTopic, producerRate, consumerBacklogSizeGB, backlogDrainRatio,
                testMinutes, warmupMinutes, keyDistributor, hotPartitionShare);
    }
}

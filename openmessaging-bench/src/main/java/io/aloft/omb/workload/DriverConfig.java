package io.aloft.omb.workload;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Properties;
import java.util.Set;

/**
 * An OMB Kafka driver file: client properties for producers, consumers and topics.
 *
 * <p>The YAML has {@code name}, {@code driverClass} (read and ignored: this runner always uses
 * kafka-clients), {@code replicationFactor}, and four multi-line {@code key=value} blocks:
 * {@code commonConfig} (producers, consumers and the admin client), {@code producerConfig},
 * {@code consumerConfig} and {@code topicConfig} (settings of the created topics). OMB's
 * {@code reset} flag is accepted and ignored, since every run creates fresh topics anyway. A
 * {@code bootstrap.servers} in {@code commonConfig} is overridden by the run's bootstrap address.
 *
 * <p>Transactions (see {@link Transactions}): {@code useTransactions: true} makes every producer
 * client transactional, as the {@code useTransactions} flag of some OMB Kafka driver files
 * ({@code kafka-s4k-transactions.yaml}; OMB's own Kafka driver has no transaction support), and
 * {@code messagesPerTransaction} (an Aloft name, default 100) sets how many messages each
 * transaction carries. A {@code transactional.id} in {@code producerConfig} is then the prefix of
 * each client's own id ({@code <prefix>-<n>}); without it the run's topic prefix is used, so two
 * runs never fence each other. Consumers of a transactional driver read with
 * {@code isolation.level=read_committed} unless {@code consumerConfig} says otherwise.
 *
 * <p>Share groups (KIP-932, see {@link ShareGroups}): {@code useShareGroups: true} (an Aloft name; OMB has
 * no share consumers) makes every consumer a {@code KafkaShareConsumer} in one share group per
 * subscription, with explicit acknowledgement. {@code releaseFraction} (default 0) is the share of
 * records a consumer RELEASEs on their first delivery instead of accepting them, so the broker
 * delivers them again: the redelivery measurement. {@code shareGroupConfig}, a {@code key=value}
 * block like {@code topicConfig}, holds the group configs each run's share group gets before its
 * consumers start ({@code share.auto.offset.reset} defaults to {@code earliest}, so no record sent
 * before the group's first fetch is skipped). {@code consumerConfig} then holds share consumer
 * settings ({@code KafkaShareConsumer} refuses classic ones such as {@code auto.offset.reset}).
 *
 * <p>The record holds mutable {@link Properties}; treat them as read-only and copy before adding
 * to them (as {@link #producerProperties} and friends do).
 */
public record DriverConfig(String name, int replicationFactor, Properties commonConfig, Properties producerConfig,
        Properties consumerConfig, Properties topicConfig, Transactions transactions, ShareGroups shareGroups) {

    private static final Set<String> FIELDS = Set.of("name", "driverClass", "replicationFactor", "commonConfig",
            "producerConfig", "consumerConfig", "topicConfig", "reset", "useTransactions", "messagesPerTransaction",
            "useShareGroups", "releaseFraction", "shareGroupConfig");
    private static final String ACK_MODE = "share.acknowledgement.mode";
    private static final String SHARE_RESET = "share.auto.offset.reset";
    private static final String TRANSACTIONAL_ID = "transactional.id";
    private static final String ISOLATION_LEVEL = "isolation.level";

    /**
     * How producers group their sends. Immutable.
     *
     * @param enabled each producer client is transactional: it begins a transaction, sends
     *     {@code messagesPerTransaction} messages, commits, and starts over
     * @param messagesPerTransaction messages in each transaction (at least 1); unused when not enabled
     */
    public record Transactions(boolean enabled, int messagesPerTransaction) {
        public static final int MESSAGES_PER_TRANSACTION_DEFAULT = 100;
        /** Plain (non-transactional) producers, OMB's default. */
        public static final Transactions NONE = new Transactions(false, MESSAGES_PER_TRANSACTION_DEFAULT);

        public Transactions {
            if (messagesPerTransaction < 1) {
                throw new ConfigFileException("driver field 'messagesPerTransaction' must be at least 1, got "
                        + messagesPerTransaction);
            }
        }
    }

    /**
     * How consumers read: classic consumer groups (OMB's way) or share groups. Immutable.
     *
     * @param enabled consumers are share consumers, one share group per subscription
     * @param releaseFraction share of records (0 to 1) released on first delivery, to be delivered again;
     *     chosen by offset ({@link #releases}), so exactly that share of every run of offsets
     * @param groupConfig group configs set on each share group before its consumers start
     */
    public record ShareGroups(boolean enabled, double releaseFraction, Properties groupConfig) {
        /** Classic consumer groups, OMB's default. */
        public static final ShareGroups NONE = new ShareGroups(false, 0, new Properties());

        public ShareGroups {
            if (!(releaseFraction >= 0 && releaseFraction <= 1)) {
                throw new ConfigFileException("driver field 'releaseFraction' must be between 0.0 and 1.0, got "
                        + releaseFraction);
            }
            groupConfig = groupConfig == null ? new Properties() : groupConfig;
        }

        /**
         * True when the record at {@code offset} is to be released on its first delivery: the offsets where
         * {@code floor(offset x fraction)} steps up, so any {@code n} consecutive offsets hold
         * {@code floor} or {@code ceil} of {@code n x fraction} of them (0.01: offsets 99, 199, ...), the same
         * choice on every system and whichever consumer receives the record.
         */
        public boolean releases(long offset) {
            return releaseFraction > 0 && offset >= 0
                    && Math.floor((offset + 1) * releaseFraction) > Math.floor(offset * releaseFraction);
        }

        /** The group configs to set: {@link #groupConfig}, {@code share.auto.offset.reset} defaulting to earliest. */
        public Properties effectiveGroupConfig() {
            Properties p = new Properties();
            p.putAll(groupConfig);
            p.putIfAbsent(SHARE_RESET, "earliest");
            return p;
        }
    }

    /** A driver without transactions. */
    public DriverConfig(String name, int replicationFactor, Properties commonConfig, Properties producerConfig,
            Properties consumerConfig, Properties topicConfig) {
        this(name, replicationFactor, commonConfig, producerConfig, consumerConfig, topicConfig, Transactions.NONE);
    }

    /** A driver with classic consumer groups. */
    public DriverConfig(String name, int replicationFactor, Properties commonConfig, Properties producerConfig,
            Properties consumerConfig, Properties topicConfig, Transactions transactions) {
        this(name, replicationFactor, commonConfig, producerConfig, consumerConfig, topicConfig, transactions,
                ShareGroups.NONE);
    }

    public DriverConfig {
        if (name == null || name.isBlank()) {
            throw new ConfigFileException("driver field 'name' is missing");
        }
        if (replicationFactor < 1 || replicationFactor > Short.MAX_VALUE) {
            throw new ConfigFileException("driver field 'replicationFactor' must be between 1 and "
                    + Short.MAX_VALUE + ", got " + replicationFactor);
        }
        commonConfig = commonConfig == null ? new Properties() : commonConfig;
        producerConfig = producerConfig == null ? new Properties() : producerConfig;
        consumerConfig = consumerConfig == null ? new Properties() : consumerConfig;
        topicConfig = topicConfig == null ? new Properties() : topicConfig;
        transactions = transactions == null ? Transactions.NONE : transactions;
        shareGroups = shareGroups == null ? ShareGroups.NONE : shareGroups;
        if (shareGroups.enabled() && transactions.enabled()) {
            // A share consumer takes its isolation level from the group config, not the client:
            // one benchmark at a time keeps each figure's meaning plain.
            throw new ConfigFileException("driver: 'useShareGroups' and 'useTransactions' cannot be combined");
        }
        if (shareGroups.enabled() && "implicit".equalsIgnoreCase(consumerConfig.getProperty(ACK_MODE,
                commonConfig.getProperty(ACK_MODE, "explicit")).trim())) {
            throw new ConfigFileException("driver: share consumers acknowledge each record explicitly (to release "
                    + "some); remove '" + ACK_MODE + "=implicit'");
        }
        if (!transactions.enabled() && (producerConfig.containsKey(TRANSACTIONAL_ID)
                || commonConfig.containsKey(TRANSACTIONAL_ID))) {
            // Every producer client would share the one id and never begin a transaction, so
            // every send would fail: say what is meant instead.
            throw new ConfigFileException("driver: 'transactional.id' in the client configs needs "
                    + "'useTransactions: true' (it is then the prefix of each producer's own id)");
        }
    }

    public static DriverConfig load(Path file) {
        String yaml;
        try {
            yaml = Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new ConfigFileException("driver file " + file + ": cannot read: " + e.getMessage(), e);
        }
        return parse("driver file " + file, yaml);
    }

    public static DriverConfig parse(String yaml) {
        return parse("driver", yaml);
    }

    private static DriverConfig parse(String what, String yaml) {
        YamlFields f = YamlFields.parse(what, yaml);
        f.rejectUnknown(FIELDS);
        f.string("driverClass", null); // must be a plain value if present; otherwise unused
        try {
            boolean useTransactions = f.bool("useTransactions", false);
            if (!useTransactions && f.has("messagesPerTransaction")) {
                throw f.error("messagesPerTransaction", "needs 'useTransactions: true'");
            }
            Transactions transactions = new Transactions(useTransactions, f.intValue("messagesPerTransaction",
                    Transactions.MESSAGES_PER_TRANSACTION_DEFAULT));
            boolean useShareGroups = f.bool("useShareGroups", false);
            for (String shareField : new String[] {"releaseFraction", "shareGroupConfig"}) {
                if (!useShareGroups && f.has(shareField)) {
                    throw f.error(shareField, "needs 'useShareGroups: true'");
                }
            }
            ShareGroups shareGroups = new ShareGroups(useShareGroups, f.number("releaseFraction", 0),
                    keyValues(f, "shareGroupConfig"));
            return new DriverConfig(
                    f.requiredString("name"),
                    f.intValue("replicationFactor", 1),
                    keyValues(f, "commonConfig"),
                    keyValues(f, "producerConfig"),
                    keyValues(f, "consumerConfig"),
                    keyValues(f, "topicConfig"),
                    transactions,
                    shareGroups);
        } catch (ConfigFileException e) {
            if (e.getMessage().startsWith(what)) {
                throw e;
            }
            throw new ConfigFileException(what + ": " + e.getMessage(), e);
        }
    }

    /**
     * Reads a block of {@code key=value} lines. Blank lines and lines starting with {@code #} are
     * skipped; every other line must have a non-empty key before its first {@code =}. Stricter than
     * {@link Properties#load}, which would take a misspelt line as a key with an empty value.
     */
    private static Properties keyValues(YamlFields f, String field) {
        Properties props = new Properties();
        String block = f.string(field, "");
        int lineNo = 0;
        for (String raw : block.split("\\R")) {
            lineNo++;
            String line = raw.strip();
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            int eq = line.indexOf('=');
            if (eq <= 0) {
                throw f.error(field, "line " + lineNo + " must be key=value, got '" + line + "'");
            }
            props.setProperty(line.substring(0, eq).strip(), line.substring(eq + 1).strip());
        }
        return props;
    }

    /**
     * This driver with {@code extra} added to {@code commonConfig}, replacing the file's values for
     * the same keys: settings the broker under test dictates, such as its security protocol and
     * trust store. Returns this driver when {@code extra} is empty.
     */
    public DriverConfig withCommonConfig(Map<String, String> extra) {
        if (extra.isEmpty()) {
            return this;
        }
        Properties common = new Properties();
        common.putAll(commonConfig);
        common.putAll(extra);
        return new DriverConfig(name, replicationFactor, common, producerConfig, consumerConfig, topicConfig,
                transactions, shareGroups);
    }

    /** commonConfig, then producerConfig, then the bootstrap address; a new object each call. */
    public Properties producerProperties(String bootstrap) {
        return merged(producerConfig, bootstrap);
    }

    /**
     * Producer client {@code index}'s properties: {@link #producerProperties}, plus with transactions
     * its own {@code transactional.id}, {@code <prefix>-<index>} where the prefix is the configured
     * {@code transactional.id} or else {@code defaultIdPrefix}. Two clients with one id would fence
     * each other, hence one per client.
     */
    public Properties producerProperties(String bootstrap, String defaultIdPrefix, int index) {
        Properties p = producerProperties(bootstrap);
        if (transactions.enabled()) {
            String prefix = p.getProperty(TRANSACTIONAL_ID, defaultIdPrefix);
            p.setProperty(TRANSACTIONAL_ID, prefix + "-" + index);
        }
        return p;
    }

    /**
     * commonConfig, then consumerConfig, then the bootstrap address; a new object each call. With
     * transactions, {@code isolation.level} defaults to {@code read_committed}: the benchmark
     * measures what a consumer of committed data sees.
     */
    public Properties consumerProperties(String bootstrap) {
        Properties p = merged(consumerConfig, bootstrap);
        if (transactions.enabled()) {
            p.putIfAbsent(ISOLATION_LEVEL, "read_committed");
        }
        return p;
    }

    /**
     * commonConfig, then consumerConfig, then the bootstrap address, with
     * {@code share.acknowledgement.mode=explicit}: a share consumer's properties; a new object each call.
     */
    public Properties shareConsumerProperties(String bootstrap) {
        Properties p = merged(consumerConfig, bootstrap);
        p.setProperty(ACK_MODE, "explicit");
        return p;
    }

    /** commonConfig and the bootstrap address, for the admin client; a new object each call. */
    public Properties adminProperties(String bootstrap) {
        return merged(new Properties(), bootstrap);
    }

    private Properties merged(Properties specific, String bootstrap) {
        Properties p = new Properties();
        p.putAll(commonConfig);
        p.putAll(specific);
        p.setProperty("bootstrap.servers", bootstrap);
        return p;
    }
}

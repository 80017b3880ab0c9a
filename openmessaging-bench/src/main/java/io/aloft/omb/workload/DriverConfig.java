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
 * <p>The record holds mutable {@link Properties}; treat them as read-only and copy before adding
 * to them (as {@link #producerProperties} and friends do).
 */
public record DriverConfig(String name, int replicationFactor, Properties commonConfig, Properties producerConfig,
        Properties consumerConfig, Properties topicConfig, Transactions transactions) {

    private static final Set<String> FIELDS = Set.of("name", "driverClass", "replicationFactor", "commonConfig",
            "producerConfig", "consumerConfig", "topicConfig", "reset", "useTransactions", "messagesPerTransaction");
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

    /** A driver without transactions. */
    public DriverConfig(String name, int replicationFactor, Properties commonConfig, Properties producerConfig,
            Properties consumerConfig, Properties topicConfig) {
        this(name, replicationFactor, commonConfig, producerConfig, consumerConfig, topicConfig, Transactions.NONE);
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
            return new DriverConfig(
                    f.requiredString("name"),
                    f.intValue("replicationFactor", 1),
                    keyValues(f, "commonConfig"),
                    keyValues(f, "producerConfig"),
                    keyValues(f, "consumerConfig"),
                    keyValues(f, "topicConfig"),
                    transactions);
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
                transactions);
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

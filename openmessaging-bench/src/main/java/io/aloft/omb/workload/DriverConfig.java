package io.aloft.omb.workload;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
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
 * <p>The record holds mutable {@link Properties}; treat them as read-only and copy before adding
 * to them (as {@link #producerProperties} and friends do).
 */
public record DriverConfig(String name, int replicationFactor, Properties commonConfig, Properties producerConfig,
        Properties consumerConfig, Properties topicConfig) {

    private static final Set<String> FIELDS = Set.of("name", "driverClass", "replicationFactor", "commonConfig",
            "producerConfig", "consumerConfig", "topicConfig", "reset");

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
            return new DriverConfig(
                    f.requiredString("name"),
                    f.intValue("replicationFactor", 1),
                    keyValues(f, "commonConfig"),
                    keyValues(f, "producerConfig"),
                    keyValues(f, "consumerConfig"),
                    keyValues(f, "topicConfig"));
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

    /** commonConfig, then producerConfig, then the bootstrap address; a new object each call. */
    public Properties producerProperties(String bootstrap) {
        return merged(producerConfig, bootstrap);
    }

    /** commonConfig, then consumerConfig, then the bootstrap address; a new object each call. */
    public Properties consumerProperties(String bootstrap) {
        return merged(consumerConfig, bootstrap);
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

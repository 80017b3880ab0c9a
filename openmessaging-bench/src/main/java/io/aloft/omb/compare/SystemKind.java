package io.aloft.omb.compare;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/** A system {@code compare} runs workloads against. Immutable. */
public enum SystemKind {
    /** Apache Kafka with its default durability: acknowledged from the page cache, no fsync per write. */
    KAFKA("kafka", "Kafka", true),
    /** Apache Kafka flushing the log before acknowledging each write ({@code log.flush.interval.messages=1}). */
    KAFKA_FSYNC("kafka-fsync", "Kafka-fsync", true),
    /** Aloft at its embedded defaults: WAL file plus {@code file://} objects. */
    ALOFT("aloft", "Aloft", false),
    /** Aloft with its objects on a local versitygw (S3 protocol). */
    ALOFT_S3("aloft-s3", "Aloft-S3", false);

    private final String cliName;
    private final String label;
    private final boolean kafka;

    SystemKind(String cliName, String label, boolean kafka) {
        this.cliName = cliName;
        this.label = label;
        this.kafka = kafka;
    }

    /** The name on the command line and in JSON: {@code kafka}, {@code aloft-s3}, ... */
    public String cliName() {
        return cliName;
    }

    /** The column header in the report. */
    public String label() {
        return label;
    }

    /** True for the Apache Kafka variants: the denominators of the ratios. */
    public boolean isKafka() {
        return kafka;
    }

    static SystemKind parse(String name) {
        String n = name.trim().toLowerCase(Locale.ROOT);
        for (SystemKind k : values()) {
            if (k.cliName.equals(n)) {
                return k;
            }
        }
        throw new IllegalArgumentException("'" + name + "' is not one of "
                + Arrays.stream(values()).map(SystemKind::cliName).collect(Collectors.joining(", ")));
    }
}

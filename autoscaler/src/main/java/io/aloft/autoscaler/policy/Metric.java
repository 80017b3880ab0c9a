package io.aloft.autoscaler.policy;

import io.aloft.autoscaler.model.BrokerLoad;
import java.util.Arrays;
import java.util.Locale;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * A per-broker load signal that target-tracking and step rules scale on, by its name in the
 * policy file. Byte rates are written as sizes ("40MiB"); CPU as a fraction of the machine (0.7)
 * or a percentage ("70%").
 *
 * <p>Immutable.
 */
public enum Metric {
    /** Record bytes appended per second on a broker ({@link BrokerLoad#bytesInPerSec()}). */
    BYTES_IN_PER_BROKER("bytesInPerBroker", true),
    /** Record bytes fetched per second from a broker ({@link BrokerLoad#bytesOutPerSec()}). */
    BYTES_OUT_PER_BROKER("bytesOutPerBroker", true),
    /** The broker process's CPU use, 0 to 1 of its machine ({@link BrokerLoad#cpuUsage()}). */
    CPU("cpu", false);

    private final String yamlName;
    private final boolean byteRate;

    Metric(String yamlName, boolean byteRate) {
        this.yamlName = yamlName;
        this.byteRate = byteRate;
    }

    /** The name in the policy file. */
    public String yamlName() {
        return yamlName;
    }

    /** Whether values are bytes per second (else a fraction of a machine). */
    public boolean isByteRate() {
        return byteRate;
    }

    /** This signal of {@code broker}; NaN when the broker did not report it. */
    public double of(BrokerLoad broker) {
        return switch (this) {
            case BYTES_IN_PER_BROKER -> broker.bytesInPerSec();
            case BYTES_OUT_PER_BROKER -> broker.bytesOutPerSec();
            case CPU -> broker.cpuUsage();
        };
    }

    /** {@code value} in this metric's unit for logs: "41.9 MiB/s" or "72.0% CPU". */
    public String format(double value) {
        return byteRate ? Units.formatRate(value) : String.format(Locale.ROOT, "%.1f%% CPU", value * 100);
    }

    /** The metric named {@code yamlName} in the policy file. */
    public static Optional<Metric> byYamlName(String yamlName) {
        return Arrays.stream(values()).filter(m -> m.yamlName.equals(yamlName)).findFirst();
    }

    /** The accepted names, for error messages. */
    static String names() {
        return Arrays.stream(values()).map(Metric::yamlName).collect(Collectors.joining(", "));
    }
}

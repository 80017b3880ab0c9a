package io.aloft.broker.quota;

/**
 * The three client quotas a broker enforces, each with Kafka's quota key. Immutable.
 */
public enum QuotaType {
    /** Bytes of produce requests per second. */
    PRODUCE("producer_byte_rate", "produce"),
    /** Bytes of fetch responses per second. */
    FETCH("consumer_byte_rate", "fetch"),
    /** Percent of one network thread's time spent handling the client's requests. */
    REQUEST("request_percentage", "request");

    /** The quota's key in AlterClientQuotas and {@code kafka-configs.sh --add-config}. */
    public final String key;
    /** The meter tag. */
    public final String tag;

    QuotaType(String key, String tag) {
        this.key = key;
        this.tag = tag;
    }
}

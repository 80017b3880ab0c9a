package io.aloft.broker.quota;

import io.aloft.config.ConfigDefinition;
import io.aloft.config.ConfigException;
import io.aloft.config.ConfigKey;
import io.aloft.config.ConfigValues;
import io.aloft.config.Validator;
import java.util.Map;

/**
 * How client quotas measure rates, under Kafka's key names and defaults, declared once in
 * {@link #DEFINITION}. The quotas themselves are set at run time (AlterClientQuotas,
 * {@code kafka-configs.sh}) and kept by the controller. Immutable.
 */
public final class QuotaConfig {

    public static final String WINDOW_NUM_CONFIG = "quota.window.num";
    public static final ConfigKey<Integer> WINDOW_NUM = ConfigKey.intKey(WINDOW_NUM_CONFIG).defaultValue(11)
            .validator(Validator.atLeast(2))
            .doc("Number of samples a client's rate is measured over, for client quotas (producer_byte_rate, "
                    + "consumer_byte_rate, request_percentage): the rate is what the last quota.window.num windows "
                    + "hold over the time they span (at least quota.window.num - 1 windows, so a new client's first "
                    + "burst is spread over that time). Each broker enforces the full quota on its own.")
            .build();

    public static final String WINDOW_SIZE_SECONDS_CONFIG = "quota.window.size.seconds";
    public static final ConfigKey<Integer> WINDOW_SIZE_SECONDS = ConfigKey.intKey(WINDOW_SIZE_SECONDS_CONFIG)
            .defaultValue(1).validator(Validator.atLeast(1))
            .doc("Length of each sample window of client quotas (see quota.window.num). A client over its "
                    + "quota is asked (throttle_time_ms) to wait until its rate is back at the quota, and its "
                    + "connection reads nothing for that long.")
            .build();

    /** Every key of client quotas. */
    public static final ConfigDefinition DEFINITION = ConfigDefinition.of("quotas", WINDOW_NUM, WINDOW_SIZE_SECONDS);

    private final int windowNum;
    private final int windowSizeSeconds;

    private QuotaConfig(ConfigValues v) {
        windowNum = v.get(WINDOW_NUM);
        windowSizeSeconds = v.get(WINDOW_SIZE_SECONDS);
    }

    /**
     * Parses the keys of {@link #DEFINITION} from {@code props}; missing keys default, others are ignored.
     *
     * @throws ConfigException naming the first bad key
     */
    public static QuotaConfig fromProperties(Map<?, ?> props) {
        return new QuotaConfig(DEFINITION.parse(props));
    }

    public int windowNum() {
        return windowNum;
    }

    public long windowMs() {
        return windowSizeSeconds * 1000L;
    }
}

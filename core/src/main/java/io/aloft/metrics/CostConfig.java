package io.aloft.metrics;

import io.aloft.config.ConfigDefinition;
import io.aloft.config.ConfigException;
import io.aloft.config.ConfigKey;
import io.aloft.config.ConfigValues;
import io.aloft.config.Validator;
import java.util.Map;

/**
 * Object storage prices behind the broker's estimated cost meters
 * ({@code aloft_object_storage_cost_usd_total}, {@code aloft_object_storage_cost_usd_per_month}).
 * The defaults are AWS S3 Standard's list prices in us-east-1; set them to your provider's, region's
 * or negotiated prices. Kafka has no such settings. Immutable.
 */
public final class CostConfig {

    public static final String PUT_PER_1000_CONFIG = "aloft.cost.s3.put.per.1000.usd";
    public static final ConfigKey<Double> PUT_PER_1000 = ConfigKey.doubleKey(PUT_PER_1000_CONFIG)
            .defaultValue(0.005).defaultText("`0.005`").validator(Validator.atLeast(0.0))
            .doc("US dollars per 1,000 PUT, COPY, POST and LIST requests (PutObject, CreateMultipartUpload, "
                    + "UploadPart, CompleteMultipartUpload, ListObjectsV2), for the estimated request cost. The "
                    + "default is AWS S3 Standard's list price in us-east-1.")
            .build();

    public static final String GET_PER_1000_CONFIG = "aloft.cost.s3.get.per.1000.usd";
    public static final ConfigKey<Double> GET_PER_1000 = ConfigKey.doubleKey(GET_PER_1000_CONFIG)
            .defaultValue(0.0004).defaultText("`0.0004`").validator(Validator.atLeast(0.0))
            .doc("US dollars per 1,000 GET and other requests (GetObject, HeadObject), for the estimated request "
                    + "cost. DELETE requests (DeleteObjects, AbortMultipartUpload) are free, as on S3. The default "
                    + "is AWS S3 Standard's list price in us-east-1.")
            .build();

    public static final String STORAGE_GB_MONTH_CONFIG = "aloft.cost.s3.storage.gb.month.usd";
    public static final ConfigKey<Double> STORAGE_GB_MONTH = ConfigKey.doubleKey(STORAGE_GB_MONTH_CONFIG)
            .defaultValue(0.023).defaultText("`0.023`").validator(Validator.atLeast(0.0))
            .doc("US dollars per GB-month stored (GB = 2^30 bytes, as S3 bills), for the estimated storage "
                    + "cost rate. The default is AWS S3 Standard's list price in us-east-1 (first 50 TB).")
            .build();

    /** Every key of the cost estimate. */
    public static final ConfigDefinition DEFINITION = ConfigDefinition.of("cost", PUT_PER_1000, GET_PER_1000,
            STORAGE_GB_MONTH);

    private final double putPer1000;
    private final double getPer1000;
    private final double storageGbMonth;

    private CostConfig(ConfigValues v) {
        putPer1000 = v.get(PUT_PER_1000);
        getPer1000 = v.get(GET_PER_1000);
        storageGbMonth = v.get(STORAGE_GB_MONTH);
    }

    /**
     * Parses the keys of {@link #DEFINITION} from {@code props}; missing keys default, others are ignored.
     *
     * @throws ConfigException naming the first bad key
     */
    public static CostConfig fromProperties(Map<?, ?> props) {
        return new CostConfig(DEFINITION.parse(props));
    }

    /** USD per 1,000 PUT, COPY, POST and LIST requests. */
    public double putPer1000Usd() {
        return putPer1000;
    }

    /** USD per 1,000 GET and other requests. */
    public double getPer1000Usd() {
        return getPer1000;
    }

    /** USD per GB-month stored. */
    public double storageGbMonthUsd() {
        return storageGbMonth;
    }
}

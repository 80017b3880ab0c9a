package io.aloft.stream.wal;

import io.aloft.config.ConfigDefinition;
import io.aloft.config.ConfigKey;
import io.aloft.config.ConfigValues;
import io.aloft.config.Validator;
import io.aloft.stream.storage.ObjectStorages;
import java.util.Map;

/**
 * Settings of the WAL in object storage ({@link ObjectStorageWal}). Without {@code wal.url} the
 * broker keeps its block WAL ({@code wal.path}).
 *
 * <p>Immutable.
 */
public final class ObjectWalConfig {

    public static final String URL_CONFIG = "wal.url";
    public static final ConfigKey<String> URL = ConfigKey.urlKey(URL_CONFIG)
            .defaultText("(none: the block WAL at `wal.path`)")
            .validator(Validator.of("s3://BUCKET?endpoint=…&region=… or file:///DIR", ObjectWalConfig::urlProblem))
            .doc("Puts the WAL in object storage instead of a block device or file: s3://bucket?… or file:///dir, "
                    + "as s3.url. Each append is acknowledged once the object holding it is stored, so produce "
                    + "latency includes one PUT; this broker's objects go under wal/node-<node.id>/.")
            .build();

    /**
     * Chosen by measurement (README, failover and S3-WAL cost): Kafka's producers keep at most 5
     * requests in flight per connection, so the time an append waits bounds a connection's
     * throughput; at 50 ms and more a default producer's 12-partition load of 20 MiB/s no longer
     * kept up, at 25 ms it did with 4-5x fewer PUTs than without an interval. Against S3, whose
     * PUTs take about that long, it changes little; it bounds faster stores' PUTs.
     */
    static final long DEFAULT_BATCH_INTERVAL_MS = 25;

    public static final String MAX_OBJECT_BYTES_CONFIG = "wal.object.max.bytes";
    public static final ConfigKey<Integer> MAX_OBJECT_BYTES = ConfigKey.intKey(MAX_OBJECT_BYTES_CONFIG)
            .defaultValue(8 << 20).validator(Validator.between(64 << 10, ObjectWalFormat.MAX_OBJECT_BYTES))
            .doc("Most bytes one WAL object (one group commit) holds when wal.url is set: appends that arrive "
                    + "while a PUT is in flight go into the next object, up to this.")
            .build();

    public static final String BATCH_INTERVAL_MS_CONFIG = "wal.object.batch.interval.ms";
    public static final ConfigKey<Long> BATCH_INTERVAL_MS = ConfigKey.longKey(BATCH_INTERVAL_MS_CONFIG)
            .defaultValue(DEFAULT_BATCH_INTERVAL_MS).validator(Validator.between(0L, 10_000L))
            .doc("Least time between the starts of two WAL object PUTs when wal.url is set; appends that arrive "
                    + "meanwhile go into the next object together, which starts sooner only once they fill "
                    + "wal.object.max.bytes. Bounds the PUTs (object storage's charge) at one per interval while "
                    + "the broker takes writes, at the price of up to one interval of produce latency; 0 starts a "
                    + "PUT as soon as the previous one is stored.")
            .build();

    public static final ConfigDefinition DEFINITION = ConfigDefinition.of("object-wal", URL, MAX_OBJECT_BYTES,
            BATCH_INTERVAL_MS);

    private final String url;
    private final int maxObjectBytes;
    private final long batchIntervalMs;

    private ObjectWalConfig(ConfigValues v) {
        String u = v.get(URL);
        url = u == null || u.isBlank() ? null : u.trim();
        maxObjectBytes = v.get(MAX_OBJECT_BYTES);
        batchIntervalMs = v.get(BATCH_INTERVAL_MS);
    }

    public static ObjectWalConfig fromProperties(Map<?, ?> props) {
        return new ObjectWalConfig(DEFINITION.parse(props));
    }

    /** {@code wal.url}, or null for the block WAL. */
    public String url() {
        return url;
    }

    public int maxObjectBytes() {
        return maxObjectBytes;
    }

    public long batchIntervalMs() {
        return batchIntervalMs;
    }

    /** This broker's key prefix in the WAL's object storage. */
    public static String prefix(int nodeId) {
        return "wal/node-" + nodeId + "/";
    }

    private static String urlProblem(String url) {
        if (url == null || url.isBlank()) {
            return null;
        }
        try {
            ObjectStorages.validate(url.trim());
            return null;
        } catch (IllegalArgumentException e) {
            return e.getMessage();
        }
    }
}

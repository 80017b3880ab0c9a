package io.aloft.stream.store;

import io.aloft.config.ConfigKey;
import io.aloft.config.Validator;

/**
 * Keys of the catch-up read budget ({@link CatchUpReads}): how much of a broker a reader that has
 * fallen behind the log cache may take from writers and tail readers. Declared here, next to the
 * code that uses them; part of {@link StreamStoreConfig#DEFINITION}.
 */
public final class CatchUpReadConfig {
    public static final String THREADS_CONFIG = "s3.catchup.read.threads";
    public static final ConfigKey<Integer> THREADS = ConfigKey.intKey(THREADS_CONFIG)
            .defaultValue(0).validator(Validator.atLeast(0))
            .doc("Threads that finish reads from object storage (decoding blocks, assembling fetch answers) once "
                    + "their bytes arrive. 0: half the cores, at least 1, so appends and reads of the log cache "
                    + "always keep a core that catch-up readers cannot take.")
            .build();

    public static final String IN_FLIGHT_CONFIG = "s3.catchup.read.inflight.bytes";
    public static final ConfigKey<Long> IN_FLIGHT = ConfigKey.longKey(IN_FLIGHT_CONFIG)
            .defaultValue(64L << 20).validator(Validator.atLeast(1L))
            .doc("Bytes that reads from object storage may ask for at once (the sum of their fetch sizes). Reads "
                    + "beyond it wait in arrival order, so many catch-up consumers share the budget in turn; a "
                    + "waiting consumer sees a slower fetch, never an error. A single read larger than this "
                    + "still runs, alone.")
            .build();

    public static final String RATE_CONFIG = "s3.catchup.read.rate.bytes.per.second";
    public static final ConfigKey<Long> RATE = ConfigKey.longKey(RATE_CONFIG)
            .defaultValue(0L).validator(Validator.atLeast(0L))
            .doc("Upper bound on the bytes per second all reads from object storage deliver together; 0 for "
                    + "none. Under it each read delivers at most a tenth of a second's worth (at least 1 MiB) and "
                    + "reads past it wait (fetch pacing), so writers and tail readers keep their share of the CPU "
                    + "and network while consumers catch up.")
            .build();

    private CatchUpReadConfig() {
    }

    /** {@link #THREADS_CONFIG} resolved: 0 means half the available cores, at least one. */
    static int threads(int configured) {
        return configured > 0 ? configured : Math.max(1, Runtime.getRuntime().availableProcessors() / 2);
    }
}

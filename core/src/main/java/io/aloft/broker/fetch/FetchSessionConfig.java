package io.aloft.broker.fetch;

import io.aloft.config.ConfigDefinition;
import io.aloft.config.ConfigException;
import io.aloft.config.ConfigKey;
import io.aloft.config.ConfigValues;
import io.aloft.config.Validator;
import java.util.Map;

/**
 * Settings of incremental fetch sessions (KIP-227), under Kafka's key name and default, declared
 * once in {@link #DEFINITION}. Immutable.
 */
public final class FetchSessionConfig {

    public static final String CACHE_SLOTS_CONFIG = "max.incremental.fetch.session.cache.slots";
    public static final ConfigKey<Integer> CACHE_SLOTS = ConfigKey.intKey(CACHE_SLOTS_CONFIG).defaultValue(1000)
            .validator(Validator.atLeast(0))
            .doc("The most incremental fetch sessions (KIP-227) the broker keeps. A consumer with a session "
                    + "sends only the partitions whose fetch position changed and gets back only partitions with "
                    + "news, instead of every partition every time. When all slots are taken, a new session may "
                    + "evict one unused for 2 minutes, or else the smallest one created over 2 minutes ago if "
                    + "the new one has more partitions; without a slot a consumer fetches sessionless (full "
                    + "requests, as before sessions). 0 turns sessions off. Memory: about 200 bytes per cached "
                    + "partition. One cache for the whole broker: unlike Kafka, which splits it into 8 shards "
                    + "of slots/8, so values below 8 still give sessions.")
            .build();

    /**
     * How long a session must have been unused before any new session may evict it, and how old a
     * session must be before a larger new session may evict it. Kafka's value
     * ({@code MIN_INCREMENTAL_FETCH_SESSION_EVICTION_MS} in its broker); Kafka exposes no key for
     * it (KIP-227 proposed {@code min.incremental.fetch.session.eviction.ms}, it was never added),
     * so neither does Aloft.
     */
    public static final long MIN_EVICTION_MS = 120_000L;

    /** Every key of fetch sessions. */
    public static final ConfigDefinition DEFINITION = ConfigDefinition.of("fetch-sessions", CACHE_SLOTS);

    private final int cacheSlots;

    private FetchSessionConfig(ConfigValues v) {
        cacheSlots = v.get(CACHE_SLOTS);
    }

    /**
     * Parses the keys of {@link #DEFINITION} from {@code props}; missing keys default, others are ignored.
     *
     * @throws ConfigException naming the first bad key
     */
    public static FetchSessionConfig fromProperties(Map<?, ?> props) {
        return new FetchSessionConfig(DEFINITION.parse(props));
    }

    /** The most sessions kept at once; 0: none (every fetch is sessionless). */
    public int cacheSlots() {
        return cacheSlots;
    }
}

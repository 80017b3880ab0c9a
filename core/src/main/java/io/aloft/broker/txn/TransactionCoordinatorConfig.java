package io.aloft.broker.txn;

import io.aloft.config.ConfigDefinition;
import io.aloft.config.ConfigException;
import io.aloft.config.ConfigKey;
import io.aloft.config.ConfigValues;
import io.aloft.config.Validator;
import java.util.Map;

/**
 * Settings of the transaction coordinator, under Kafka's key names and with Kafka's defaults,
 * declared once in {@link #DEFINITION}. Values are parsed once into typed fields; a bad value fails
 * with a {@link ConfigException} whose message starts with the key. Keys this class does not know
 * are ignored, since the broker's properties file holds many more. Immutable.
 */
public final class TransactionCoordinatorConfig {

    public static final String STATE_LOG_PARTITIONS_CONFIG = "transaction.state.log.num.partitions";
    public static final ConfigKey<Integer> STATE_LOG_PARTITIONS = ConfigKey.intKey(STATE_LOG_PARTITIONS_CONFIG)
            .defaultValue(50).validator(Validator.atLeast(1))
            .doc("Partitions of __transaction_state. A transactional id lives in partition "
                    + "abs(transactionalId.hashCode()) % this, as in Kafka; changing it after transactional ids "
                    + "exist strands them.")
            .build();

    public static final String MAX_TIMEOUT_MS_CONFIG = "transaction.max.timeout.ms";
    public static final ConfigKey<Integer> MAX_TIMEOUT_MS = ConfigKey.intKey(MAX_TIMEOUT_MS_CONFIG)
            .defaultValue(900_000).validator(Validator.atLeast(1))
            .doc("The longest transaction timeout a producer may ask for (transaction.timeout.ms); "
                    + "InitProducerId with a longer one fails with INVALID_TRANSACTION_TIMEOUT, so a producer "
                    + "cannot hold back read_committed consumers for longer than this.")
            .build();

    public static final String ABORT_TIMED_OUT_INTERVAL_MS_CONFIG =
            "transaction.abort.timed.out.transaction.cleanup.interval.ms";
    public static final ConfigKey<Integer> ABORT_TIMED_OUT_INTERVAL_MS = ConfigKey
            .intKey(ABORT_TIMED_OUT_INTERVAL_MS_CONFIG).defaultValue(10_000).validator(Validator.atLeast(1))
            .doc("How often ongoing transactions older than their timeout are looked for. Each one found is "
                    + "aborted and its producer epoch bumped, so the producer that left it open is fenced.")
            .build();

    public static final String ID_EXPIRATION_MS_CONFIG = "transactional.id.expiration.ms";
    public static final ConfigKey<Integer> ID_EXPIRATION_MS = ConfigKey.intKey(ID_EXPIRATION_MS_CONFIG)
            .defaultValue(604_800_000).validator(Validator.atLeast(1))
            .doc("A transactional id with no transaction in progress and no update for this long is "
                    + "forgotten (a tombstone in __transaction_state); its producer starts afresh with a new "
                    + "producer id.")
            .build();

    public static final String REMOVE_EXPIRED_INTERVAL_MS_CONFIG =
            "transaction.remove.expired.transaction.cleanup.interval.ms";
    public static final ConfigKey<Integer> REMOVE_EXPIRED_INTERVAL_MS = ConfigKey
            .intKey(REMOVE_EXPIRED_INTERVAL_MS_CONFIG).defaultValue(3_600_000).validator(Validator.atLeast(1))
            .doc("How often transactional ids past transactional.id.expiration.ms are looked for.")
            .build();

    /**
     * The finalized level of Kafka's {@code transaction.version} feature (KIP-584, KIP-890), which
     * ApiVersions reports and by which clients choose how to run transactions. A static broker
     * setting, not a feature the controller finalizes: Kafka changes it with
     * {@code kafka-features.sh upgrade/downgrade} (UpdateFeatures), which Aloft does not serve, and
     * Aloft's controller keeps one feature level of its own ({@code FeatureLevel}) with no room for
     * Kafka's named features yet. So it must be the same on every broker, and a change takes a
     * rolling restart; ApiVersions' finalized-features epoch is the broker's start time, so clients
     * take the level of the most recently started broker (the Java client keeps the features of the
     * highest epoch it has seen). The broker serves both versions at either level, as Kafka does:
     * the level only tells clients which to use.
     */
    public static final String TRANSACTION_VERSION_CONFIG = "aloft.transaction.version";
    public static final ConfigKey<Integer> TRANSACTION_VERSION = ConfigKey.intKey(TRANSACTION_VERSION_CONFIG)
            .defaultValue(2).validator(Validator.between(1, 2))
            .doc("The finalized level of Kafka's transaction.version feature that ApiVersions reports (Kafka's "
                    + "kafka-features.sh upgrade/downgrade --feature transaction.version=N): 2 has clients bump the "
                    + "producer epoch with every transaction and leave adding partitions to the partitions' leaders "
                    + "(KIP-890 part 2; the default, as in Kafka 4); 1 keeps them on AddPartitionsToTxn, "
                    + "AddOffsetsToTxn and one epoch per producer session. Must be the same on every broker; a "
                    + "change takes a rolling restart. Only with aloft.transactions.enable.")
            .build();

    public static final String PARTITION_VERIFICATION_CONFIG = "transaction.partition.verification.enable";
    public static final ConfigKey<Boolean> PARTITION_VERIFICATION = ConfigKey.booleanKey(PARTITION_VERIFICATION_CONFIG)
            .defaultValue(true)
            .doc("Whether a partition's leader verifies with the coordinator that a transaction-version-1 "
                    + "producer added the partition before appending the transaction's first batch there (KIP-890 "
                    + "part 1), refusing it otherwise, so a late or stray write cannot leave a transaction open "
                    + "that nobody ends. Transaction-version-2 producers' partitions are always added by their "
                    + "leaders. Kafka's setting (dynamic there, static here).")
            .build();

    public static final String ADD_PARTITIONS_RETRY_BACKOFF_MAX_MS_CONFIG =
            "add.partitions.to.txn.retry.backoff.max.ms";
    public static final ConfigKey<Integer> ADD_PARTITIONS_RETRY_BACKOFF_MAX_MS = ConfigKey
            .intKey(ADD_PARTITIONS_RETRY_BACKOFF_MAX_MS_CONFIG).defaultValue(100).validator(Validator.atLeast(0))
            .doc("How long a partition's leader keeps asking the coordinator to add a partition to a "
                    + "transaction-version-2 producer's transaction while the coordinator answers "
                    + "CONCURRENT_TRANSACTIONS (the producer's previous transaction still completing: it begins the "
                    + "next one as soon as its commit is answered, before the markers are written); then the "
                    + "produce is answered CONCURRENT_TRANSACTIONS and the producer retries after its "
                    + "retry.backoff.ms. Only adds by a produce (not verifications, not TxnOffsetCommit). Kafka's "
                    + "setting; 0 answers at once.")
            .build();

    public static final String ADD_PARTITIONS_RETRY_BACKOFF_MS_CONFIG = "add.partitions.to.txn.retry.backoff.ms";
    public static final ConfigKey<Integer> ADD_PARTITIONS_RETRY_BACKOFF_MS = ConfigKey
            .intKey(ADD_PARTITIONS_RETRY_BACKOFF_MS_CONFIG).defaultValue(20).validator(Validator.atLeast(1))
            .doc("The pause before a partition's leader asks another broker's coordinator again to add a "
                    + "partition it refused with CONCURRENT_TRANSACTIONS (within "
                    + ADD_PARTITIONS_RETRY_BACKOFF_MAX_MS_CONFIG + "). A coordinator on the same broker is not "
                    + "asked again after a pause but as soon as the previous transaction completes. Kafka's "
                    + "setting.")
            .build();

    /** Every key the transaction coordinator reads. */
    public static final ConfigDefinition DEFINITION = ConfigDefinition.of("transactions", STATE_LOG_PARTITIONS,
            MAX_TIMEOUT_MS, ABORT_TIMED_OUT_INTERVAL_MS, ID_EXPIRATION_MS, REMOVE_EXPIRED_INTERVAL_MS,
            TRANSACTION_VERSION, PARTITION_VERIFICATION, ADD_PARTITIONS_RETRY_BACKOFF_MAX_MS,
            ADD_PARTITIONS_RETRY_BACKOFF_MS);

    private final int stateLogPartitions;
    private final int maxTimeoutMs;
    private final int abortTimedOutIntervalMs;
    private final int idExpirationMs;
    private final int removeExpiredIntervalMs;
    private final short transactionVersion;
    private final boolean partitionVerification;
    private final int addPartitionsRetryBackoffMaxMs;
    private final int addPartitionsRetryBackoffMs;

    private TransactionCoordinatorConfig(ConfigValues v) {
        stateLogPartitions = v.get(STATE_LOG_PARTITIONS);
        maxTimeoutMs = v.get(MAX_TIMEOUT_MS);
        abortTimedOutIntervalMs = v.get(ABORT_TIMED_OUT_INTERVAL_MS);
        idExpirationMs = v.get(ID_EXPIRATION_MS);
        removeExpiredIntervalMs = v.get(REMOVE_EXPIRED_INTERVAL_MS);
        transactionVersion = v.get(TRANSACTION_VERSION).shortValue();
        partitionVerification = v.get(PARTITION_VERIFICATION);
        addPartitionsRetryBackoffMaxMs = v.get(ADD_PARTITIONS_RETRY_BACKOFF_MAX_MS);
        addPartitionsRetryBackoffMs = v.get(ADD_PARTITIONS_RETRY_BACKOFF_MS);
    }

    /**
     * Parses the keys of {@link #DEFINITION} from {@code props} (text or typed values); missing keys default.
     *
     * @throws ConfigException naming the first bad key
     */
    public static TransactionCoordinatorConfig fromProperties(Map<?, ?> props) {
        return new TransactionCoordinatorConfig(DEFINITION.parse(props));
    }

    /** Kafka's defaults for every key. */
    public static TransactionCoordinatorConfig defaults() {
        return fromProperties(Map.of());
    }

    public int stateLogPartitions() {
        return stateLogPartitions;
    }

    public int maxTimeoutMs() {
        return maxTimeoutMs;
    }

    public int abortTimedOutIntervalMs() {
        return abortTimedOutIntervalMs;
    }

    public int idExpirationMs() {
        return idExpirationMs;
    }

    public int removeExpiredIntervalMs() {
        return removeExpiredIntervalMs;
    }

    /** Whether version-1 producers' first batches are verified ({@link #PARTITION_VERIFICATION_CONFIG}). */
    public boolean partitionVerification() {
        return partitionVerification;
    }

    /** The finalized {@code transaction.version} clients are told ({@link #TRANSACTION_VERSION_CONFIG}). */
    public short transactionVersion() {
        return transactionVersion;
    }

    /** How long a produce's add is retried on CONCURRENT_TRANSACTIONS (the .max.ms key). */
    public int addPartitionsRetryBackoffMaxMs() {
        return addPartitionsRetryBackoffMaxMs;
    }

    /** The pause between those retries at another broker's coordinator (the .backoff.ms key). */
    public int addPartitionsRetryBackoffMs() {
        return addPartitionsRetryBackoffMs;
    }
}

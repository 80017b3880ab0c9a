package io.aloft.stream.storage;

import java.time.Duration;
import java.util.Objects;

/**
 * How an {@link ObjectStorage} behaves: retries, timeouts, connection and thread counts, and the
 * uncaught-exception handler of its threads. Where
 * the data lives (bucket, endpoint, credentials, directory) is in the URL given to
 * {@link ObjectStorages#open}. Immutable; build with {@link #builder()}.
 *
 * <p>The builder fails fast: each option may be set once, values are checked when set, and
 * options that clash are reported by {@link Builder#build()} with both values.
 */
public final class ObjectStorageOptions {

    public static final int MAX_ATTEMPTS_DEFAULT = 6;
    public static final Duration RETRY_BASE_DELAY_DEFAULT = Duration.ofMillis(100);
    public static final Duration RETRY_MAX_DELAY_DEFAULT = Duration.ofSeconds(10);
    public static final Duration CONNECT_TIMEOUT_DEFAULT = Duration.ofSeconds(10);
    public static final Duration ATTEMPT_TIMEOUT_DEFAULT = Duration.ofSeconds(60);
    public static final Duration CALL_TIMEOUT_DEFAULT = Duration.ofMinutes(5);
    public static final int MAX_CONNECTIONS_DEFAULT = 64;
    /** S3's own page size; smaller only to exercise pagination in tests. */
    public static final int LIST_PAGE_SIZE_DEFAULT = 1000;
    public static final int IO_THREADS_DEFAULT = 4;

    private static final ObjectStorageOptions DEFAULTS = builder().build();

    private final int maxAttempts;
    private final Duration retryBaseDelay;
    private final Duration retryMaxDelay;
    private final Duration connectTimeout;
    private final Duration attemptTimeout;
    private final Duration callTimeout;
    private final int maxConnections;
    private final int listPageSize;
    private final int ioThreads;
    private final Thread.UncaughtExceptionHandler uncaughtExceptionHandler;

    private ObjectStorageOptions(Builder b) {
        this.maxAttempts = b.maxAttempts != null ? b.maxAttempts : MAX_ATTEMPTS_DEFAULT;
        this.retryBaseDelay = b.retryBaseDelay != null ? b.retryBaseDelay : RETRY_BASE_DELAY_DEFAULT;
        this.retryMaxDelay = b.retryMaxDelay != null ? b.retryMaxDelay : RETRY_MAX_DELAY_DEFAULT;
        this.connectTimeout = b.connectTimeout != null ? b.connectTimeout : CONNECT_TIMEOUT_DEFAULT;
        this.attemptTimeout = b.attemptTimeout != null ? b.attemptTimeout : ATTEMPT_TIMEOUT_DEFAULT;
        this.callTimeout = b.callTimeout != null ? b.callTimeout : CALL_TIMEOUT_DEFAULT;
        this.maxConnections = b.maxConnections != null ? b.maxConnections : MAX_CONNECTIONS_DEFAULT;
        this.listPageSize = b.listPageSize != null ? b.listPageSize : LIST_PAGE_SIZE_DEFAULT;
        this.ioThreads = b.ioThreads != null ? b.ioThreads : IO_THREADS_DEFAULT;
        this.uncaughtExceptionHandler = b.uncaughtExceptionHandler;
    }

    public static ObjectStorageOptions defaults() {
        return DEFAULTS;
    }

    public static Builder builder() {
        return new Builder();
    }

    /** S3: attempts per request including the first (1 = no retries). */
    public int maxAttempts() {
        return maxAttempts;
    }

    /** S3: first back-off delay; later ones double, with full jitter, up to the max. */
    public Duration retryBaseDelay() {
        return retryBaseDelay;
    }

    public Duration retryMaxDelay() {
        return retryMaxDelay;
    }

    /** S3: TCP connect timeout. */
    public Duration connectTimeout() {
        return connectTimeout;
    }

    /** S3: limit on one attempt of a request, transfer included. */
    public Duration attemptTimeout() {
        return attemptTimeout;
    }

    /** S3: limit on a whole request, all attempts and back-off included. */
    public Duration callTimeout() {
        return callTimeout;
    }

    /** S3: concurrent HTTP connections; requests beyond it queue in the client. */
    public int maxConnections() {
        return maxConnections;
    }

    /** Keys per list page (S3 maxKeys). The file backend counts LIST requests with it. */
    public int listPageSize() {
        return listPageSize;
    }

    /** File backend: threads doing blocking file IO. */
    public int ioThreads() {
        return ioThreads;
    }

    /**
     * Set on the storage's own threads (file IO threads, S3 event loops); null leaves the JVM's
     * default. Requests fail through their futures; this sees only what escapes a thread.
     */
    public Thread.UncaughtExceptionHandler uncaughtExceptionHandler() {
        return uncaughtExceptionHandler;
    }

    @Override
    public String toString() {
        return "ObjectStorageOptions{maxAttempts=" + maxAttempts + ", retryBaseDelay=" + retryBaseDelay
                + ", retryMaxDelay=" + retryMaxDelay + ", connectTimeout=" + connectTimeout
                + ", attemptTimeout=" + attemptTimeout + ", callTimeout=" + callTimeout
                + ", maxConnections=" + maxConnections + ", listPageSize=" + listPageSize
                + ", ioThreads=" + ioThreads + '}';
    }

    /** Not thread-safe; use from one thread. */
    public static final class Builder {
        private Integer maxAttempts;
        private Duration retryBaseDelay;
        private Duration retryMaxDelay;
        private Duration connectTimeout;
        private Duration attemptTimeout;
        private Duration callTimeout;
        private Integer maxConnections;
        private Integer listPageSize;
        private Integer ioThreads;
        private Thread.UncaughtExceptionHandler uncaughtExceptionHandler;

        private Builder() {
        }

        public Builder maxAttempts(int maxAttempts) {
            requireUnset(this.maxAttempts, "maxAttempts");
            this.maxAttempts = requireRange("maxAttempts", maxAttempts, 1, 100);
            return this;
        }

        public Builder retryBaseDelay(Duration delay) {
            requireUnset(this.retryBaseDelay, "retryBaseDelay");
            this.retryBaseDelay = requirePositive("retryBaseDelay", delay);
            return this;
        }

        public Builder retryMaxDelay(Duration delay) {
            requireUnset(this.retryMaxDelay, "retryMaxDelay");
            this.retryMaxDelay = requirePositive("retryMaxDelay", delay);
            return this;
        }

        public Builder connectTimeout(Duration timeout) {
            requireUnset(this.connectTimeout, "connectTimeout");
            this.connectTimeout = requirePositive("connectTimeout", timeout);
            return this;
        }

        public Builder attemptTimeout(Duration timeout) {
            requireUnset(this.attemptTimeout, "attemptTimeout");
            this.attemptTimeout = requirePositive("attemptTimeout", timeout);
            return this;
        }

        public Builder callTimeout(Duration timeout) {
            requireUnset(this.callTimeout, "callTimeout");
            this.callTimeout = requirePositive("callTimeout", timeout);
            return this;
        }

        public Builder maxConnections(int maxConnections) {
            requireUnset(this.maxConnections, "maxConnections");
            this.maxConnections = requireRange("maxConnections", maxConnections, 1, 10_000);
            return this;
        }

        public Builder listPageSize(int listPageSize) {
            requireUnset(this.listPageSize, "listPageSize");
            this.listPageSize = requireRange("listPageSize", listPageSize, 1, 1000);
            return this;
        }

        public Builder ioThreads(int ioThreads) {
            requireUnset(this.ioThreads, "ioThreads");
            this.ioThreads = requireRange("ioThreads", ioThreads, 1, 1024);
            return this;
        }

        /** See {@link ObjectStorageOptions#uncaughtExceptionHandler()}. */
        public Builder uncaughtExceptionHandler(Thread.UncaughtExceptionHandler handler) {
            requireUnset(this.uncaughtExceptionHandler, "uncaughtExceptionHandler");
            this.uncaughtExceptionHandler = Objects.requireNonNull(handler, "uncaughtExceptionHandler");
            return this;
        }

        /**
         * @throws IllegalArgumentException if the retry base delay exceeds the max delay, or the
         *     attempt timeout exceeds the call timeout
         */
        public ObjectStorageOptions build() {
            ObjectStorageOptions o = new ObjectStorageOptions(this);
            if (o.retryBaseDelay.compareTo(o.retryMaxDelay) > 0) {
                throw new IllegalArgumentException("retryBaseDelay (" + o.retryBaseDelay
                        + ") must not exceed retryMaxDelay (" + o.retryMaxDelay + ")");
            }
            if (o.attemptTimeout.compareTo(o.callTimeout) > 0) {
                throw new IllegalArgumentException("attemptTimeout (" + o.attemptTimeout
                        + ") must not exceed callTimeout (" + o.callTimeout + ")");
            }
            return o;
        }

        private static void requireUnset(Object current, String name) {
            if (current != null) {
                throw new IllegalStateException(name + " was already set to " + current);
            }
        }

        private static int requireRange(String name, int value, int min, int max) {
            if (value < min || value > max) {
                throw new IllegalArgumentException(name + " must be in [" + min + ", " + max + "], got " + value);
            }
            return value;
        }

        private static Duration requirePositive(String name, Duration value) {
            Objects.requireNonNull(value, name);
            if (value.isNegative() || value.isZero()) {
                throw new IllegalArgumentException(name + " must be positive, got " + value);
            }
            return value;
        }
    }
}

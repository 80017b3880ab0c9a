package io.aloft.broker.network;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.atomic.LongAdder;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;

/**
 * The network layer's meters, named as the Prometheus JMX exporter names Kafka's
 * {@code kafka.network:type=RequestMetrics} and {@code socket-server-metrics} MBeans.
 *
 * <p><b>Where a request's time goes.</b> Aloft has no request queue between network and handler
 * threads: a request is parsed and handed to its handler on the connection's event loop. So the
 * split points (all {@link System#nanoTime()}) are:
 * <ol>
 *   <li><i>received</i>: the whole frame has been read (its memory was reserved before);
 *   <li><i>dispatched</i>: header and body parsed, the handler is called. {@code requestqueuetime}
 *       is received to dispatched: parsing, what stands for Kafka's wait in the request queue;
 *   <li><i>handled</i>: the handler's future completes (on whichever thread completes it).
 *       {@code localtime} is dispatched to handled, and so includes what Kafka counts as
 *       {@code RemoteTime} (a produce waiting for the WAL, a fetch long-polling);
 *   <li><i>written</i>: the response, encoded, is written to the channel on its turn (responses
 *       leave in request order). {@code responsequeuetime} is handled to written: the hop to the
 *       event loop, encoding, and waiting for earlier responses of the connection;
 *   <li><i>sent</i>: Netty reports the last byte handed to the socket. {@code responsesendtime} is
 *       written to sent; {@code totaltime} is received to sent.
 * </ol>
 * A request with no response (Produce acks=0) ends at <i>handled</i>: its total time is received to
 * handled and it has no queue or send time; a response that closes the connection is not timed.
 *
 * <p>Meters are looked up once: per API key in arrays indexed by {@link ApiKeys#id}, per error code
 * in a second dimension, created on first use (the registry returns the same error counter to
 * racing creators, so a lost race only writes the same reference twice).
 *
 * <p>The requests by API and version are counted here and nowhere else: a {@link LongAdder} per
 * version, which {@code kafka_network_requestmetrics_requests_total} reads at scrape time
 * ({@link FunctionCounter}) and {@link #requests} reads for the broker's own use (which versions
 * clients speak), whatever registry is given (a counter in an empty composite registry counts
 * nothing). An API's meters and its version adders are made under a lock on first use: two racing
 * creators would otherwise each count into an adder of their own, and the registry would keep
 * reading only the first.
 *
 * <p>Thread-safe.
 */
public final class NetworkMetrics {
    /** Latency histograms span 1 ms to 1 min (fetches long-poll up to their max wait). */
    private static final Duration MIN_LATENCY = Duration.ofMillis(1);
    private static final Duration MAX_LATENCY = Duration.ofMinutes(1);
    private static final int ERROR_CODES = maxErrorCode() + 2; // codes start at -1

    private final MeterRegistry registry;
    private final AtomicReferenceArray<ApiMeters> apis = new AtomicReferenceArray<>(maxApiId() + 1);
    private final LongAdder inFlight = new LongAdder();
    private final Map<String, ListenerMeters> listeners = new ConcurrentHashMap<>();

    public NetworkMetrics(MeterRegistry registry) {
        this.registry = registry;
        Gauge.builder("aloft.network.requests.inflight", inFlight, LongAdder::sum)
                .description("Requests read and not yet answered, over all connections (Aloft has no request "
                        + "queue: requests are handed to their handlers as they are read)")
                .register(registry);
    }

    /** The meters of one API (made on first use). */
    ApiMeters api(ApiKeys key) {
        ApiMeters m = apis.get(key.id);
        if (m == null) {
            synchronized (apis) {
                m = apis.get(key.id);
                if (m == null) {
                    m = new ApiMeters(key);
                    apis.set(key.id, m);
                }
            }
        }
        return m;
    }

    /** Requests of {@code key} at {@code version} received and handed to their handler since the start. */
    public long requests(ApiKeys key, short version) {
        ApiMeters m = apis.get(key.id);
        return m == null ? 0 : m.requests(version);
    }

    void requestRead() {
        inFlight.increment();
    }

    void requestsDone(int n) {
        inFlight.add(-n);
    }

    /** The connection meters of one listener (made once per listener, at bind). */
    ListenerMeters listener(String name) {
        return listeners.computeIfAbsent(name, ListenerMeters::new);
    }

    /** Binds the request memory pool's state (read at scrape time). */
    void bindMemoryPool(RequestMemoryPool pool) {
        // Kafka's names carry no unit suffix (dashboards built on the JMX exporter's names work as they are).
        Gauge.builder("kafka.network.socketserver.memorypoolused", pool, p -> p.used())
                .description("Request bytes reserved now: frames being read or not yet handled "
                        + "(queued.max.request.bytes bounds them); Kafka's SocketServer MemoryPoolUsed")
                .register(registry);
        Gauge.builder("kafka.network.socketserver.memorypoolavailable", pool,
                        p -> p.capacity() == Long.MAX_VALUE ? Long.MAX_VALUE : p.capacity() - p.used())
                .description("Request bytes that can still be reserved (9.2e18 when queued.max.request.bytes "
                        + "is -1, unlimited, as Kafka reports it); Kafka's SocketServer MemoryPoolAvailable")
                .register(registry);
        Gauge.builder("aloft.network.request.memory.peak", pool, p -> p.peak())
                .baseUnit("bytes")
                .description("Most request bytes reserved at once since the broker started")
                .register(registry);
        Gauge.builder("aloft.network.request.memory.waiting", pool, p -> p.waiting())
                .description("Connections waiting for request memory (not reading meanwhile)")
                .register(registry);
    }

    /** One API's meters; the version and error counters are made on first use. */
    final class ApiMeters {
        private final String request;
        final Timer totalTime;
        final Timer requestQueueTime;
        final Timer localTime;
        final Timer responseQueueTime;
        final Timer responseSendTime;
        /** Requests by version, made on first use (under this object's lock); see the class comment. */
        private final AtomicReferenceArray<LongAdder> byVersion;
        /** Versions beyond what this build of kafka-clients knows: none reach here (see {@link #requested}). */
        private final Map<Short, LongAdder> otherVersions = new ConcurrentHashMap<>();
        private final Counter[] byError = new Counter[ERROR_CODES];

        ApiMeters(ApiKeys key) {
            request = key.name; // Kafka's API name: Produce, Fetch, ...
            byVersion = new AtomicReferenceArray<>(key.latestVersion(true) + 1);
            totalTime = timer("totaltime", "Time from a request's last byte read to its response's last byte sent "
                    + "(or, with no response, to its handling done)");
            requestQueueTime = timer("requestqueuetime", "Time from a request's last byte read to its handler's "
                    + "call (parsing: Aloft has no request queue)");
            localTime = timer("localtime", "Time in the request's handler, up to its response future completing "
                    + "(includes waits for the WAL or a fetch's long poll, Kafka's RemoteTime)");
            responseQueueTime = timer("responsequeuetime", "Time from the handler's response to its write on the "
                    + "connection (encoding, and waiting for the connection's earlier responses)");
            responseSendTime = timer("responsesendtime", "Time from a response's write to its last byte handed "
                    + "to the socket");
        }

        private Timer timer(String what, String description) {
            return Timer.builder("kafka.network.requestmetrics." + what)
                    .tag("request", request)
                    .description(description)
                    .publishPercentileHistogram()
                    .minimumExpectedValue(MIN_LATENCY)
                    .maximumExpectedValue(MAX_LATENCY)
                    .register(registry);
        }

        /**
         * Counts a request about to be dispatched. Its version is one the dispatcher serves, so within
         * this build's known versions; another is still counted (in a map), not dropped.
         */
        void requested(short version) {
            LongAdder n = version >= 0 && version < byVersion.length() ? byVersion.get(version) : null;
            if (n == null) {
                n = versionAdder(version);
            }
            n.increment();
        }

        long requests(short version) {
            LongAdder n = version >= 0 && version < byVersion.length() ? byVersion.get(version)
                    : otherVersions.get(version);
            return n == null ? 0 : n.sum();
        }

        private synchronized LongAdder versionAdder(short version) {
            boolean known = version >= 0 && version < byVersion.length();
            LongAdder n = known ? byVersion.get(version) : otherVersions.get(version);
            if (n != null) {
                return n;
            }
            LongAdder made = new LongAdder();
            // The registry holds its object weakly: the array or map keeps the adder alive.
            FunctionCounter.builder("kafka.network.requestmetrics.requests", made, LongAdder::sum)
                    .tag("request", request).tag("version", Short.toString(version))
                    .description("Requests received, by API and version; Kafka's RequestMetrics RequestsPerSec")
                    .register(registry);
            if (known) {
                byVersion.set(version, made);
            } else {
                otherVersions.put(version, made);
            }
            return made;
        }

        /** Counts a response's error codes, NONE included, as Kafka's ErrorsPerSec does. */
        void errors(Errors error, int count) {
            int i = error.code() + 1;
            Counter c = i >= 0 && i < byError.length ? byError[i] : null;
            if (c == null) {
                c = Counter.builder("kafka.network.requestmetrics.errors")
                        .tag("request", request).tag("error", error.name())
                        .description("Error codes in responses, per API and error: each partition's error counts "
                                + "(error=NONE: successes); Kafka's RequestMetrics ErrorsPerSec")
                        .register(registry);
                if (i >= 0 && i < byError.length) {
                    byError[i] = c;
                }
            }
            c.increment(count);
        }

        void record(Timer timer, long fromNanos, long toNanos) {
            timer.record(toNanos - fromNanos, TimeUnit.NANOSECONDS);
        }

        @Override
        public String toString() {
            return request;
        }
    }

    /** One listener's connection meters. */
    final class ListenerMeters {
        private final AtomicLong open = new AtomicLong();
        private final Counter created;
        private final Counter closed;
        private final Counter refusedPerIp;
        private final Counter refusedTotal;

        ListenerMeters(String listener) {
            // Kafka's socket-server-metrics connection-count is a gauge ending in _count, which
            // Prometheus' naming rules (promtool) reject: "connections" here.
            Gauge.builder("kafka.server.socketservermetrics.connections", open, AtomicLong::get)
                    .tag("listener", listener)
                    .description("Connections open now; Kafka's socket-server-metrics connection-count")
                    .register(registry);
            created = Counter.builder("kafka.server.socketservermetrics.connection.creation").tag("listener", listener)
                    .description("Connections accepted; Kafka's socket-server-metrics connection-creation-total")
                    .register(registry);
            closed = Counter.builder("kafka.server.socketservermetrics.connection.close").tag("listener", listener)
                    .description("Connections closed; Kafka's socket-server-metrics connection-close-total")
                    .register(registry);
            refusedPerIp = refused(listener, "max.connections.per.ip");
            refusedTotal = refused(listener, "max.connections");
        }

        private Counter refused(String listener, String limit) {
            return Counter.builder("aloft.network.connections.refused").tag("listener", listener).tag("limit", limit)
                    .description("Connections closed as soon as accepted because a connection limit was reached")
                    .register(registry);
        }

        void opened() {
            created.increment();
            open.incrementAndGet();
        }

        void closed() {
            open.decrementAndGet();
            closed.increment();
        }

        void refused(boolean perIp) {
            (perIp ? refusedPerIp : refusedTotal).increment();
        }
    }

    private static int maxApiId() {
        int max = 0;
        for (ApiKeys k : ApiKeys.values()) {
            max = Math.max(max, k.id);
        }
        return max;
    }

    private static int maxErrorCode() {
        int max = 0;
        for (Errors e : Errors.values()) {
            max = Math.max(max, e.code());
        }
        return max;
    }
}

package io.aloft.autoscaler.collect;

import io.aloft.autoscaler.collect.Observation.BrokerObservation;
import io.aloft.autoscaler.collect.Observation.PartitionKey;
import io.aloft.autoscaler.model.ClusterSnapshot;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsResult.ListOffsetsResultInfo;
import org.apache.kafka.clients.admin.ListTopicsOptions;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How the autoscaler sees the cluster: each {@link #sample()} reads it through public interfaces
 * only (Admin {@code describeCluster}, {@code describeTopics} with internal topics, {@code
 * listOffsets} latest for every led partition; a GET of every broker's {@code /metrics} and {@code
 * /readyz}) and turns this round and the previous one into a {@link ClusterSnapshot} of rates
 * ({@link LoadEstimator}). The first call reads twice, {@code minWindow} apart; a later call that
 * comes sooner than {@code minWindow} after the previous round waits out the rest, since rates over
 * a shorter interval are mostly noise.
 *
 * <p>A broker whose scrape fails (refused, timed out, not HTTP 200) has NaN rates and {@code
 * ready=false} in that snapshot; that is logged once at WARN with the URL and the error, again only
 * when the error changes, and at INFO when the broker answers again, so a broker that is down for
 * minutes costs a line, not a line a sample. An Admin failure fails the whole sample ({@link
 * IOException}): without the partition map there is nothing to decide from.
 *
 * <p>Confined to the caller's single thread (the autoscaler's control loop); the HTTP client runs
 * its I/O on one daemon thread of its own, which {@link #close()} stops. The {@link Admin} and the
 * {@link MetricsLocator} belong to the caller, who closes the Admin.
 */
public final class SnapshotCollector implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(SnapshotCollector.class);

    /** The interval rates are computed over at least, unless a constructor says otherwise. */
    public static final Duration DEFAULT_MIN_WINDOW = Duration.ofSeconds(5);
    private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(2);
    private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(5);
    private static final long ADMIN_TIMEOUT_MS = 30_000;

    private final Admin admin;
    private final MetricsLocator locator;
    private final Duration minWindow;
    private final ExecutorService httpThread;
    private final HttpClient http;
    /** Broker id -> the error its last scrape failed with; absent while it answers. */
    private final Map<Integer, String> failing = new HashMap<>();
    private Observation previous;

    /** With {@link #DEFAULT_MIN_WINDOW}. */
    public SnapshotCollector(Admin admin, MetricsLocator locator) {
        this(admin, locator, DEFAULT_MIN_WINDOW);
    }

    /**
     * @param admin the cluster's Admin client (the caller owns and closes it)
     * @param locator where each broker serves its metrics
     * @param minWindow the shortest interval rates are computed over (the first {@link #sample()}
     *     takes this long); positive
     */
    public SnapshotCollector(Admin admin, MetricsLocator locator, Duration minWindow) {
        this.admin = Objects.requireNonNull(admin, "admin");
        this.locator = Objects.requireNonNull(locator, "locator");
        if (minWindow == null || minWindow.isNegative() || minWindow.isZero()) {
            throw new IllegalArgumentException("minWindow must be positive, not " + minWindow);
        }
        this.minWindow = minWindow;
        this.httpThread = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "aloft-autoscaler-scrape");
            t.setDaemon(true);
            return t;
        });
        this.http = HttpClient.newBuilder().connectTimeout(CONNECT_TIMEOUT).executor(httpThread)
                .followRedirects(HttpClient.Redirect.NEVER).build();
    }

    /**
     * Reads the cluster and returns its load over the interval since the previous call (the first
     * call reads twice, {@code minWindow} apart).
     *
     * @throws IOException if an Admin call fails or times out (30 s)
     * @throws InterruptedException if interrupted while reading or waiting
     */
    public ClusterSnapshot sample() throws IOException, InterruptedException {
        if (previous == null) {
            previous = observe();
        }
        long waitNanos = minWindow.toNanos() - (System.nanoTime() - previous.nanos());
        if (waitNanos > 0) {
            TimeUnit.NANOSECONDS.sleep(waitNanos);
        }
        Observation current = observe();
        ClusterSnapshot snapshot = LoadEstimator.estimate(previous, current);
        previous = current;
        return snapshot;
    }

    private Observation observe() throws IOException, InterruptedException {
        Collection<Node> nodes = admin("describeCluster", admin.describeCluster().nodes());
        Map<Integer, URI> urls = locator.locate(nodes);
        long timeMs = System.currentTimeMillis();
        long nanos = System.nanoTime();
        Map<Integer, CompletableFuture<HttpResponse<String>>> metrics = new TreeMap<>();
        Map<Integer, CompletableFuture<HttpResponse<String>>> ready = new TreeMap<>();
        for (Map.Entry<Integer, URI> e : urls.entrySet()) {
            metrics.put(e.getKey(), get(e.getValue().resolve("/metrics")));
            ready.put(e.getKey(), get(e.getValue().resolve("/readyz")));
        }
        Map<PartitionKey, Integer> leaders = leaders();
        Map<PartitionKey, Long> endOffsets = endOffsets(leaders.keySet());
        Map<Integer, BrokerObservation> brokers = new TreeMap<>();
        for (Node n : nodes) {
            URI url = urls.get(n.id());
            PrometheusText parsed = null;
            String error = null;
            try {
                HttpResponse<String> r = await(metrics.get(n.id()));
                if (r.statusCode() == 200) {
                    parsed = PrometheusText.parse(r.body());
                    if (parsed.skippedLines() > 0) {
                        log.debug("Broker {}: {} lines of {}/metrics skipped, first {}", n.id(), parsed.skippedLines(),
                                url, parsed.firstProblem());
                    }
                } else {
                    error = "HTTP " + r.statusCode();
                }
            } catch (IOException e) {
                error = describe(e);
            }
            boolean isReady;
            try {
                isReady = parsed != null && await(ready.get(n.id())).statusCode() == 200;
            } catch (IOException e) {
                isReady = false;
            }
            noteScrape(n.id(), url, error);
            String rack = n.rack();
            brokers.put(n.id(), new BrokerObservation(n.id(), Optional.ofNullable(rack).filter(r -> !r.isEmpty()),
                    url, parsed, error, isReady));
        }
        return new Observation(timeMs, nanos, brokers, leaders, endOffsets);
    }

    private CompletableFuture<HttpResponse<String>> get(URI uri) {
        HttpRequest request = HttpRequest.newBuilder(uri).timeout(REQUEST_TIMEOUT)
                // The classic text format (0.0.4), which PrometheusText reads; never OpenMetrics.
                .header("Accept", "text/plain; version=0.0.4").GET().build();
        return http.sendAsync(request, HttpResponse.BodyHandlers.ofString());
    }

    private static HttpResponse<String> await(CompletableFuture<HttpResponse<String>> f)
            throws IOException, InterruptedException {
        try {
            return f.get(REQUEST_TIMEOUT.toMillis() + CONNECT_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            Throwable c = e.getCause();
            throw c instanceof IOException io ? io : new IOException(c.toString(), c);
        } catch (TimeoutException e) {
            f.cancel(true);
            throw new IOException("no answer in " + (REQUEST_TIMEOUT.plus(CONNECT_TIMEOUT)).toSeconds() + " s");
        }
    }

    /** The exception and the first message in its causes (HttpClient's ConnectException has none itself). */
    static String describe(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t.getMessage() != null && !t.getMessage().isBlank()) {
                return e.getClass().getSimpleName() + (t == e ? "" : " (" + t.getClass().getSimpleName() + ")") + ": "
                        + t.getMessage();
            }
        }
        return e.getClass().getSimpleName();
    }

    /** Logs a scrape failure when it starts or changes, and the recovery; nothing while steady. */
    private void noteScrape(int id, URI url, String error) {
        String before = error == null ? failing.remove(id) : failing.put(id, error);
        if (error != null && !error.equals(before)) {
            log.warn("Broker {}: scraping {}/metrics failed: {}; its rates are unknown (NaN) until it answers", id,
                    url, error);
        } else if (error != null) {
            log.debug("Broker {}: scraping {}/metrics still fails: {}", id, url, error);
        } else if (before != null) {
            log.info("Broker {}: {}/metrics answers again", id, url);
        }
    }

    /** Every partition of every topic, internal ones included, to its leader's id; leaderless ones left out. */
    private Map<PartitionKey, Integer> leaders() throws IOException, InterruptedException {
        Collection<String> names = admin("listTopics",
                admin.listTopics(new ListTopicsOptions().listInternal(true)).names());
        Map<PartitionKey, Integer> out = new TreeMap<>();
        if (names.isEmpty()) {
            return out;
        }
        Map<String, KafkaFuture<TopicDescription>> futures = admin.describeTopics(names).topicNameValues();
        for (Map.Entry<String, KafkaFuture<TopicDescription>> e : new TreeMap<>(futures).entrySet()) {
            TopicDescription d;
            try {
                d = e.getValue().get(ADMIN_TIMEOUT_MS, TimeUnit.MILLISECONDS);
            } catch (ExecutionException ex) {
                // Deleted between the listing and the description: it has no load to balance.
                log.debug("Topic {} not described: {}", e.getKey(), ex.getCause().toString());
                continue;
            } catch (TimeoutException ex) {
                throw new IOException("describeTopics did not answer in " + ADMIN_TIMEOUT_MS + " ms", ex);
            }
            for (TopicPartitionInfo p : d.partitions()) {
                if (p.leader() != null && p.leader().id() >= 0) {
                    out.put(new PartitionKey(d.name(), p.partition()), p.leader().id());
                }
            }
        }
        return out;
    }

    /** Latest offsets; a partition whose ListOffsets fails (mid-move) is left out, i.e. did not grow. */
    private Map<PartitionKey, Long> endOffsets(Collection<PartitionKey> partitions) throws InterruptedException {
        Map<PartitionKey, Long> out = new TreeMap<>();
        if (partitions.isEmpty()) {
            return out;
        }
        Map<TopicPartition, OffsetSpec> request = new HashMap<>();
        List<PartitionKey> keys = new ArrayList<>(partitions);
        for (PartitionKey k : keys) {
            request.put(new TopicPartition(k.topic(), k.partition()), OffsetSpec.latest());
        }
        var result = admin.listOffsets(request);
        for (PartitionKey k : keys) {
            try {
                ListOffsetsResultInfo info = result.partitionResult(new TopicPartition(k.topic(), k.partition()))
                        .get(ADMIN_TIMEOUT_MS, TimeUnit.MILLISECONDS);
                out.put(k, info.offset());
            } catch (ExecutionException | TimeoutException e) {
                log.debug("No log-end offset of {}-{}: {}", k.topic(), k.partition(), e.toString());
            }
        }
        return out;
    }

    private static <T> T admin(String call, KafkaFuture<T> future) throws IOException, InterruptedException {
        try {
            return future.get(ADMIN_TIMEOUT_MS, TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            throw new IOException(call + " failed: " + e.getCause(), e.getCause());
        } catch (TimeoutException e) {
            throw new IOException(call + " did not answer in " + ADMIN_TIMEOUT_MS + " ms", e);
        }
    }

    /** Stops the HTTP client's thread; the Admin stays open (the caller's). */
    @Override
    public void close() {
        httpThread.shutdownNow();
    }
}

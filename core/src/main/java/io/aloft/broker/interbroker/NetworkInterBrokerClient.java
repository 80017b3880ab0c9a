package io.aloft.broker.interbroker;

import io.aloft.broker.security.SslConfig;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.ApiVersions;
import org.apache.kafka.clients.ClientRequest;
import org.apache.kafka.clients.ClientResponse;
import org.apache.kafka.clients.ManualMetadataUpdater;
import org.apache.kafka.clients.MetadataRecoveryStrategy;
import org.apache.kafka.clients.NetworkClient;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.errors.AuthenticationException;
import org.apache.kafka.common.errors.BrokerNotAvailableException;
import org.apache.kafka.common.errors.DisconnectException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.metrics.Metrics;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.network.ChannelBuilder;
import org.apache.kafka.common.network.ChannelBuilders;
import org.apache.kafka.common.network.ListenerName;
import org.apache.kafka.common.security.auth.SecurityProtocol;
import org.apache.kafka.common.network.PlaintextChannelBuilder;
import org.apache.kafka.common.network.Selector;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.security.JaasContext;
import org.apache.kafka.common.utils.LogContext;
import org.apache.kafka.common.utils.Time;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link InterBrokerClient} on kafka-clients' own {@link NetworkClient} over a {@link Selector},
 * with a {@link ManualMetadataUpdater} (no metadata requests: addresses come from
 * {@link BrokerAddresses}) and one sender thread, as Kafka's brokers send each other requests
 * (its InterBrokerSendThread). Chosen over a small Netty client because NetworkClient already does
 * what such a client needs and is easy to get subtly wrong: the ApiVersions handshake and version
 * choice per destination, correlation of responses, per-request timeouts, connection setup timeouts
 * and reconnect backoff; and the request and response classes are the ones the handlers use. Its
 * channels also secure the connections as {@link InterBrokerSecurity} says: TLS, and SASL
 * (ApiVersions, SaslHandshake, SaslAuthenticate before the first request), as a Kafka client would.
 * A destination that refuses this broker's authentication fails the requests waiting for it with
 * the {@link AuthenticationException} and is logged at ERROR (once a minute per destination).
 *
 * <p>One connection per destination broker (NetworkClient's), several requests in flight on it.
 * A request waits for its connection while it is being made (bounded by the request timeout); a
 * connection attempt that fails fails the requests waiting for it with a
 * {@link DisconnectException}, and the next request to that broker tries again after NetworkClient's
 * reconnect backoff (exponential, {@value #RECONNECT_BACKOFF_MS} to {@value #RECONNECT_BACKOFF_MAX_MS}
 * ms). A broker whose registered address changed (restarted elsewhere) has its old connection closed.
 *
 * <p>Threads: {@link #send} may be called from any thread and only queues the request and wakes
 * the sender. Everything else, the NetworkClient included (it is not thread-safe), is confined to
 * the sender thread, which also completes the futures: callers must not block in their dependants,
 * and should hand anything more than a little bookkeeping to their own thread.
 */
public final class NetworkInterBrokerClient implements InterBrokerClient {
    private static final Logger LOG = LoggerFactory.getLogger(NetworkInterBrokerClient.class);

    /** Kafka's request.timeout.ms default for inter-broker requests: how long a request may take in all. */
    public static final int REQUEST_TIMEOUT_MS = 30_000;
    /** Kafka's reconnect.backoff.ms and reconnect.backoff.max.ms defaults. */
    static final long RECONNECT_BACKOFF_MS = 50;
    static final long RECONNECT_BACKOFF_MAX_MS = 1_000;
    /** Kafka's socket.connection.setup.timeout.ms and its max default. */
    static final long CONNECTION_SETUP_TIMEOUT_MS = 10_000;
    static final long CONNECTION_SETUP_TIMEOUT_MAX_MS = 30_000;
    /** Longest sleep of the sender when nothing is due: it is woken by each send anyway. */
    private static final long MAX_POLL_MS = 1_000;
    /** Closes idle connections, as Kafka's connections.max.idle.ms (its default). */
    private static final long CONNECTIONS_MAX_IDLE_MS = 600_000;

    /** How often a destination that refuses this broker's authentication is logged at most. */
    static final long REFUSAL_LOG_INTERVAL_MS = 60_000;

    private final BrokerAddresses addresses;
    private final String listener;
    private final InterBrokerSecurity security;
    private final int requestTimeoutMs;
    private final Time time = Time.SYSTEM;
    private final Metrics metrics = new Metrics();
    private final NetworkClient client;
    private final Thread sender;
    private final ConcurrentLinkedQueue<Pending> queued = new ConcurrentLinkedQueue<>();
    /** Requests sent and not answered, to fail them when closing; the sender thread adds and removes. */
    private final Set<CompletableFuture<AbstractResponse>> inFlight = ConcurrentHashMap.newKeySet();
    private volatile boolean running = true;

    /** Confined to the sender thread: requests waiting for their connection. */
    private final List<Pending> waiting = new ArrayList<>();
    /** Confined to the sender thread: when a refused authentication was last logged, per destination. */
    private final Map<Integer, Long> lastRefusalLogged = new HashMap<>();
    /** Confined to the sender thread: the address each destination was last connected at. */
    private final Map<Integer, Node> connectedAt = new HashMap<>();

    private record Pending(int brokerId, AbstractRequest.Builder<?> request, long deadlineMs,
            CompletableFuture<AbstractResponse> future) {
    }

    /**
     * @param nodeId this broker, for the client id and logs
     * @param listener the inter-broker listener's name
     * @param threads makes the sender thread (the broker's, so a dying sender stops the broker)
     */
    public NetworkInterBrokerClient(int nodeId, BrokerAddresses addresses, String listener, ThreadFactory threads) {
        this(nodeId, addresses, listener, InterBrokerSecurity.plaintext(), threads, REQUEST_TIMEOUT_MS);
    }

    /**
     * As above; with {@code sslSettings} non-empty (the listener's {@code ssl.*} settings, as a
     * Kafka client takes them) the connections use TLS, through kafka-clients' own SSL channel.
     */
    public NetworkInterBrokerClient(int nodeId, BrokerAddresses addresses, String listener,
            Map<String, String> sslSettings, ThreadFactory threads) {
        this(nodeId, addresses, listener, sslSettings.isEmpty() ? InterBrokerSecurity.plaintext()
                : InterBrokerSecurity.ssl(sslSettings), threads, REQUEST_TIMEOUT_MS);
    }

    /**
     * As above, secured as {@code security} says (TLS, SASL or both, through kafka-clients' own
     * channels: a SASL connection authenticates before its first request).
     */
    public NetworkInterBrokerClient(int nodeId, BrokerAddresses addresses, String listener,
            InterBrokerSecurity security, ThreadFactory threads) {
        this(nodeId, addresses, listener, security, threads, REQUEST_TIMEOUT_MS);
    }

    /** As above, with a request timeout other than {@link #REQUEST_TIMEOUT_MS} (tests). */
    NetworkInterBrokerClient(int nodeId, BrokerAddresses addresses, String listener, ThreadFactory threads,
            int requestTimeoutMs) {
        this(nodeId, addresses, listener, InterBrokerSecurity.plaintext(), threads, requestTimeoutMs);
    }

    NetworkInterBrokerClient(int nodeId, BrokerAddresses addresses, String listener, InterBrokerSecurity security,
            ThreadFactory threads, int requestTimeoutMs) {
        this.addresses = Objects.requireNonNull(addresses);
        this.requestTimeoutMs = requestTimeoutMs;
        this.listener = listener;
        this.security = security;
        LogContext logContext = new LogContext("[inter-broker client of broker " + nodeId + "] ");
        ChannelBuilder channels = channels(listener, security, logContext);
        Selector selector = new Selector(CONNECTIONS_MAX_IDLE_MS, metrics, time, "aloft-inter-broker", channels,
                logContext);
        this.client = new NetworkClient(selector, new ManualMetadataUpdater(), "broker-" + nodeId + "-inter-broker",
                100, RECONNECT_BACKOFF_MS, RECONNECT_BACKOFF_MAX_MS, -1, -1, requestTimeoutMs,
                CONNECTION_SETUP_TIMEOUT_MS, CONNECTION_SETUP_TIMEOUT_MAX_MS, time, true, new ApiVersions(),
                logContext, MetadataRecoveryStrategy.NONE);
        this.sender = threads.newThread(this::run);
        sender.start();
    }

    private ChannelBuilder channels(String listener, InterBrokerSecurity security, LogContext logContext) {
        ListenerName name = ListenerName.normalised(listener);
        if (security.protocol() == SecurityProtocol.PLAINTEXT) {
            PlaintextChannelBuilder plaintext = new PlaintextChannelBuilder(name);
            plaintext.configure(Map.of());
            return plaintext;
        }
        // kafka-clients parses and types the ssl.* and sasl.* values itself (stores, passwords, PEM,
        // the JAAS entry), as for any client; not logged (false): the values hold passwords.
        AbstractConfig config = new AbstractConfig(new ConfigDef().withClientSslSupport().withClientSaslSupport(),
                security.clientSettings(), false);
        boolean sasl = security.saslMechanism() != null;
        return ChannelBuilders.clientChannelBuilder(security.protocol(), sasl ? JaasContext.Type.CLIENT : null,
                config, name, security.saslMechanism(), time, logContext);
    }

    @Override
    public CompletableFuture<AbstractResponse> send(int brokerId, AbstractRequest.Builder<?> request) {
        CompletableFuture<AbstractResponse> future = new CompletableFuture<>();
        if (!running) {
            future.completeExceptionally(new IllegalStateException("the inter-broker client is closed"));
            return future;
        }
        queued.add(new Pending(brokerId, request, time.milliseconds() + requestTimeoutMs, future));
        client.wakeup();
        if (!running) {
            failAll(); // closed meanwhile: the sender may have drained the queue already
        }
        return future;
    }

    private void run() {
        try {
            while (running) {
                long now = time.milliseconds();
                for (Pending p; (p = queued.poll()) != null; ) {
                    waiting.add(p);
                }
                long pollMs = Math.min(MAX_POLL_MS, dispatch(now));
                client.poll(pollMs, time.milliseconds());
            }
        } finally {
            failAll();
            try {
                client.close();
            } catch (RuntimeException e) {
                LOG.warn("Closing the inter-broker client failed", e);
            }
            metrics.close();
        }
    }

    /**
     * Sends the waiting requests whose connection is ready, fails those that cannot be sent; returns
     * how long the sender may sleep before something waiting is due.
     */
    private long dispatch(long now) {
        long pollMs = MAX_POLL_MS;
        for (Iterator<Pending> it = waiting.iterator(); it.hasNext(); ) {
            Pending p = it.next();
            if (p.future.isDone()) {
                it.remove();
                continue;
            }
            if (now >= p.deadlineMs) {
                it.remove();
                p.future.completeExceptionally(new TimeoutException("no connection to broker " + p.brokerId
                        + " within " + requestTimeoutMs + " ms"));
                continue;
            }
            Node node = addresses.address(p.brokerId);
            if (node == null) {
                it.remove();
                p.future.completeExceptionally(new BrokerNotAvailableException("broker " + p.brokerId
                        + " is not known (not registered, or without the inter-broker listener)"));
                continue;
            }
            String id = node.idString();
            Node known = connectedAt.put(p.brokerId, node);
            if (known != null && (!known.host().equals(node.host()) || known.port() != node.port())) {
                LOG.info("Broker {} moved from {}:{} to {}:{}; reconnecting", p.brokerId, known.host(), known.port(),
                        node.host(), node.port());
                client.close(id);
            }
            if (client.ready(node, now)) {
                it.remove();
                sendNow(p, id, now);
            } else if (client.connectionFailed(node)) {
                it.remove();
                AuthenticationException refused = client.authenticationException(node);
                if (refused != null) {
                    logRefused(p.brokerId, node, refused, now);
                    p.future.completeExceptionally(refused);
                } else {
                    p.future.completeExceptionally(new DisconnectException("could not connect to broker " + p.brokerId
                            + " at " + node.host() + ":" + node.port()));
                }
            } else {
                pollMs = Math.min(pollMs, Math.max(1, Math.min(p.deadlineMs - now, client.pollDelayMs(node, now))));
            }
        }
        return pollMs;
    }

    /**
     * An operator must act (the brokers' credentials or certificates disagree, and transactions
     * cannot complete meanwhile): ERROR, once a minute per destination, naming what to check.
     * NetworkClient's own line ("failed authentication due to: ...") comes with each attempt.
     */
    private void logRefused(int brokerId, Node node, AuthenticationException e, long now) {
        Long last = lastRefusalLogged.get(brokerId);
        if (last != null && now - last < REFUSAL_LOG_INTERVAL_MS) {
            return;
        }
        lastRefusalLogged.put(brokerId, now);
        String check = security.saslMechanism() != null
                ? "the username and password of " + SslConfig.prefix(listener)
                        + security.saslMechanism().toLowerCase(java.util.Locale.ROOT) + ".sasl.jaas.config here and "
                        + "the user_NAME entries of that key on broker " + brokerId
                : "this broker's ssl.keystore and broker " + brokerId + "'s ssl.truststore (and the reverse)";
        LOG.error("Broker {} at {}:{} refused this broker's {} authentication on inter-broker listener {}: {}. "
                + "Requests to it fail (transaction markers, group lag) until this is fixed; check {}", brokerId,
                node.host(), node.port(), security.protocol(), listener, e.getMessage(), check);
    }

    private void sendNow(Pending p, String id, long now) {
        int timeoutMs = (int) Math.max(1, p.deadlineMs - now);
        inFlight.add(p.future);
        ClientRequest request = client.newClientRequest(id, p.request, now, true, timeoutMs,
                response -> complete(p, response));
        client.send(request, now);
    }

    /** On the sender thread (NetworkClient's callbacks run in poll). */
    private void complete(Pending p, ClientResponse response) {
        inFlight.remove(p.future);
        if (response.versionMismatch() != null) {
            p.future.completeExceptionally(response.versionMismatch());
        } else if (response.wasTimedOut()) {
            p.future.completeExceptionally(new TimeoutException("broker " + p.brokerId + " did not answer "
                    + response.requestHeader().apiKey() + " within " + requestTimeoutMs + " ms"));
        } else if (response.wasDisconnected()) {
            p.future.completeExceptionally(new DisconnectException("the connection to broker " + p.brokerId
                    + " was lost before the response to " + response.requestHeader().apiKey()));
        } else if (response.authenticationException() != null) {
            p.future.completeExceptionally(response.authenticationException());
        } else {
            p.future.complete(response.responseBody());
        }
    }

    private void failAll() {
        IllegalStateException closed = new IllegalStateException("the inter-broker client is closed");
        for (Pending p; (p = queued.poll()) != null; ) {
            p.future.completeExceptionally(closed);
        }
        if (Thread.currentThread() == sender) {
            waiting.forEach(p -> p.future.completeExceptionally(closed));
            waiting.clear();
        }
        inFlight.forEach(f -> f.completeExceptionally(closed));
        inFlight.clear();
    }

    /** Stops the sender (waiting up to 10 s), failing what is not answered yet. Idempotent. */
    @Override
    public void close() {
        running = false;
        client.wakeup();
        try {
            sender.join(TimeUnit.SECONDS.toMillis(10));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (sender.isAlive()) {
            LOG.warn("The inter-broker sender did not stop within 10 s");
        }
    }
}

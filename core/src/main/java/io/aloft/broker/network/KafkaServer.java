package io.aloft.broker.network;

import io.aloft.broker.security.sasl.FailedAuthentications;
import io.aloft.broker.security.sasl.SaslListenerSettings;
import io.aloft.broker.security.ConnectionSecurity;
import io.aloft.broker.security.ListenerSecurity;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.composite.CompositeMeterRegistry;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.stream.ChunkedWriteHandler;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.common.protocol.ApiKeys;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Kafka protocol server: one Netty server socket per listener. Each accepted connection first
 * passes the {@link ConnectionLimits} (on the accept thread), then, on an SSL or SASL_SSL listener, gets Netty's
 * {@code SslHandler} (JDK provider) and a {@link TlsPrincipalHandler} that sets the connection's
 * principal once the handshake completes; then two handlers of its own: {@link RequestFrameDecoder} (size-prefixed frames of at most
 * {@code socket.request.max.bytes}, their memory reserved from the broker-wide
 * {@link RequestMemoryPool} before they are read) and {@link ConnectionHandler} (requests and
 * responses, idle timeout). Their {@link ReadPauses} decides when the connection reads.
 *
 * <p>Warnings about bad requests and refused connections go through one {@link RateLimitedWarnings}
 * each, whose suppressed counts are logged every {@link Settings#suppressedWarningsInterval()}.
 *
 * <p>Request, connection and request-memory meters ({@link NetworkMetrics}) go to the registry
 * given to {@link #start(List, Settings, int, RequestDispatcher, Thread.UncaughtExceptionHandler,
 * io.micrometer.core.instrument.MeterRegistry)}.
 *
 * <p>Threads: {@code kafka-accept-*} and {@code kafka-network-*} event loops, given the
 * uncaught-exception handler passed to {@link #start} (Netty logs what a task throws and keeps
 * the loop running; the handler sees only a loop thread that dies).
 */
public final class KafkaServer implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(KafkaServer.class);

    /**
     * A listener to bind: name (e.g. PLAINTEXT), host (empty = all interfaces), port (0 = any free),
     * how its connections are secured, and its SASL settings when clients must authenticate first
     * (null: no SASL).
     */
    public record Listener(String name, String host, int port, ListenerSecurity security,
            SaslListenerSettings sasl) {
        /** A listener without SASL. */
        public Listener(String name, String host, int port, ListenerSecurity security) {
            this(name, host, port, security, null);
        }

        /** A PLAINTEXT listener. */
        public Listener(String name, String host, int port) {
            this(name, host, port, ListenerSecurity.PLAINTEXT);
        }
    }

    /**
     * The limits the server applies (the broker reads them from its configuration; see
     * {@code BrokerConfig} for what each means).
     *
     * @param maxRequestBytes {@code socket.request.max.bytes}: the largest size field of a frame
     * @param queuedMaxRequestBytes {@code queued.max.request.bytes}: request bytes held at once, -1 unlimited
     * @param connectionQueuedMaxRequestBytes one connection's share of them, {@link Long#MAX_VALUE} unlimited
     * @param connectionsMaxIdleMs {@code connections.max.idle.ms}, -1 never
     * @param maxConnections {@code max.connections}
     * @param maxConnectionsPerIp {@code max.connections.per.ip}
     * @param maxConnectionsPerIpOverrides {@code max.connections.per.ip.overrides}, resolved
     * @param suppressedWarningsInterval how often suppressed warnings are summarized
     */
    public record Settings(int maxRequestBytes, long queuedMaxRequestBytes, long connectionQueuedMaxRequestBytes,
            long connectionsMaxIdleMs, int maxConnections, int maxConnectionsPerIp,
            Map<InetAddress, Integer> maxConnectionsPerIpOverrides, Duration suppressedWarningsInterval) {
        /** Kafka's defaults (no request memory limit, ten minutes idle, no connection limits). */
        public static Settings defaults(int maxRequestBytes) {
            return new Settings(maxRequestBytes, -1, Long.MAX_VALUE, 600_000, Integer.MAX_VALUE, Integer.MAX_VALUE,
                    Map.of(), Duration.ofMinutes(1));
        }

        public Settings {
            maxConnectionsPerIpOverrides = Map.copyOf(maxConnectionsPerIpOverrides);
        }
    }

    /** Request memory now: the pool's capacity ({@link Long#MAX_VALUE}: unlimited), bytes reserved, the peak, waiters. */
    public record RequestMemoryStats(long capacity, long used, long peak, int waiting) {
    }

    /** Bad requests: 10 lines at once, then one every 6 s (10 a minute). */
    private static final int WARNING_BURST = 10;
    private static final long WARNING_REFILL_NANOS = TimeUnit.SECONDS.toNanos(6);

    private final EventLoopGroup boss;
    private final EventLoopGroup workers;
    private final Map<String, Channel> bound = new LinkedHashMap<>();
    private final AtomicLong connections = new AtomicLong();
    private final Settings settings;
    private final RequestMemoryPool pool;
    private final RateLimitedWarnings badRequests;
    private final RateLimitedWarnings refusedConnections;
    private final RateLimitedWarnings failedAuthentications;
    private final ConnectionLimits limits;
    private final NetworkMetrics metrics;
    /** Failed SASL authentications per client address, over all listeners. */
    private final FailedAuthentications saslFailures = new FailedAuthentications(System::nanoTime);

    private KafkaServer(Settings settings, int networkThreads, Thread.UncaughtExceptionHandler handler,
            MeterRegistry registry) {
        this.settings = settings;
        this.metrics = new NetworkMetrics(registry);
        this.boss = new NioEventLoopGroup(1, threads("kafka-accept", handler));
        this.workers = new NioEventLoopGroup(networkThreads, threads("kafka-network", handler));
        this.pool = new RequestMemoryPool(settings.queuedMaxRequestBytes());
        metrics.bindMemoryPool(pool);
        this.badRequests = new RateLimitedWarnings(LoggerFactory.getLogger(ConnectionHandler.class), "bad requests",
                WARNING_BURST, WARNING_REFILL_NANOS, System::nanoTime);
        this.refusedConnections = new RateLimitedWarnings(LoggerFactory.getLogger(ConnectionLimits.class),
                "refused connections", WARNING_BURST, WARNING_REFILL_NANOS, System::nanoTime);
        this.failedAuthentications = new RateLimitedWarnings(LoggerFactory.getLogger(TlsPrincipalHandler.class),
                "failed authentications", WARNING_BURST, WARNING_REFILL_NANOS, System::nanoTime);
        this.limits = new ConnectionLimits(settings.maxConnections(), settings.maxConnectionsPerIp(),
                settings.maxConnectionsPerIpOverrides(), refusedConnections, boss.next(),
                (listener, perIp) -> metrics.listener(listener).refused(perIp));
        long every = settings.suppressedWarningsInterval().toNanos();
        boss.scheduleAtFixedRate(() -> {
            badRequests.flushSuppressed();
            refusedConnections.flushSuppressed();
            failedAuthentications.flushSuppressed();
        }, every, every, TimeUnit.NANOSECONDS);
    }

    /** Netty's own factory (its fast thread-locals), plus the handler. */
    private static ThreadFactory threads(String name, Thread.UncaughtExceptionHandler handler) {
        DefaultThreadFactory netty = new DefaultThreadFactory(name, true);
        return r -> {
            Thread t = netty.newThread(r);
            t.setUncaughtExceptionHandler(handler);
            return t;
        };
    }

    /**
     * Binds every listener with Kafka's default limits ({@link Settings#defaults}); fails (and
     * releases what was bound) if one cannot be bound.
     */
    public static KafkaServer start(List<Listener> listeners, int maxRequestBytes, int networkThreads,
            RequestDispatcher dispatcher) throws InterruptedException {
        return start(listeners, Settings.defaults(maxRequestBytes), networkThreads, dispatcher,
                (thread, error) -> log.error("Uncaught exception on network thread {}", thread.getName(), error));
    }

    /**
     * As above, with {@code settings}, the event loops' threads carrying {@code handler}; meters go
     * nowhere.
     */
    public static KafkaServer start(List<Listener> listeners, Settings settings, int networkThreads,
            RequestDispatcher dispatcher, Thread.UncaughtExceptionHandler handler) throws InterruptedException {
        return start(listeners, settings, networkThreads, dispatcher, handler, new CompositeMeterRegistry());
    }

    /** As above, the request and connection meters ({@link NetworkMetrics}) registered on {@code registry}. */
    public static KafkaServer start(List<Listener> listeners, Settings settings, int networkThreads,
            RequestDispatcher dispatcher, Thread.UncaughtExceptionHandler handler, MeterRegistry registry)
            throws InterruptedException {
        KafkaServer server = new KafkaServer(settings, networkThreads, handler, registry);
        try {
            for (Listener l : listeners) {
                server.bind(l, dispatcher);
            }
            return server;
        } catch (RuntimeException | InterruptedException e) {
            server.close();
            throw e;
        }
    }

    private void bind(Listener listener, RequestDispatcher dispatcher) throws InterruptedException {
        NetworkMetrics.ListenerMeters connectionMeters = metrics.listener(listener.name());
        ServerBootstrap b = new ServerBootstrap()
                .group(boss, workers)
                .channel(NioServerSocketChannel.class)
                .option(ChannelOption.SO_BACKLOG, 1024)
                .option(ChannelOption.SO_REUSEADDR, true)
                .handler(limits.acceptHandler(listener.name()))
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        String id = listener.name() + "-" + connections.incrementAndGet();
                        connectionMeters.opened();
                        ch.closeFuture().addListener(f -> connectionMeters.closed());
                        ReadPauses pauses = new ReadPauses(ch);
                        ListenerSecurity security = listener.security();
                        ConnectionSecurity connection = new ConnectionSecurity(listener.name(), security.protocol());
                        if (security.tls()) {
                            // First in the pipeline: everything after it sees plaintext. The decoder reads
                            // nothing until the handshake has completed (and the principal is known).
                            ch.pipeline().addLast("tls", security.sslContext().newHandler(ch.alloc()));
                            ch.pipeline().addLast("tls-principal", new TlsPrincipalHandler(connection,
                                    listener.sasl() == null ? security.principalRules() : null, id,
                                    failedAuthentications));
                        }
                        // Large responses leave a piece at a time, as the socket takes them (ResponseChunks).
                        ch.pipeline().addLast("chunks", new ChunkedWriteHandler());
                        ch.pipeline().addLast("frames", new RequestFrameDecoder(settings.maxRequestBytes(), pool,
                                settings.connectionQueuedMaxRequestBytes(), pauses));
                        ch.pipeline().addLast("requests", new ConnectionHandler(dispatcher, connection, id, pauses,
                                badRequests, settings.connectionsMaxIdleMs(), metrics, listener.sasl(),
                                saslFailures));
                    }
                });
        InetSocketAddress address = listener.host().isEmpty() ? new InetSocketAddress(listener.port())
                : new InetSocketAddress(listener.host(), listener.port());
        Channel channel = b.bind(address).sync().channel();
        bound.put(listener.name(), channel);
        log.info("Listening for Kafka clients on {} ({}, {})", channel.localAddress(), listener.name(),
                listener.security().protocol());
    }

    /**
     * Requests of {@code key} at {@code version} read and dispatched since the start, over all
     * listeners: what {@code kafka_network_requestmetrics_requests_total} reports (one count, kept
     * by {@link NetworkMetrics}).
     */
    public long requests(ApiKeys key, short version) {
        return metrics.requests(key, version);
    }

    /** The port a listener is bound to (useful with port 0). */
    public int port(String listenerName) {
        Channel c = bound.get(listenerName);
        if (c == null) {
            throw new IllegalArgumentException("no listener " + listenerName);
        }
        return ((InetSocketAddress) c.localAddress()).getPort();
    }

    /** The request memory pool's state now. */
    public RequestMemoryStats requestMemoryStats() {
        synchronized (pool) {
            return new RequestMemoryStats(pool.capacity(), pool.used(), pool.peak(), pool.waiting());
        }
    }

    @Override
    public void close() {
        for (Channel c : bound.values()) {
            c.close().awaitUninterruptibly();
        }
        boss.shutdownGracefully(0, 5, TimeUnit.SECONDS).awaitUninterruptibly();
        workers.shutdownGracefully(0, 5, TimeUnit.SECONDS).awaitUninterruptibly();
    }
}

package io.aloft.broker.network;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.LengthFieldBasedFrameDecoder;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.net.InetSocketAddress;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Kafka protocol server: one Netty server socket per listener, size-prefixed frames of at
 * most {@code socket.request.max.bytes}, each connection served by a {@link ConnectionHandler}.
 *
 * <p>Threads: {@code kafka-accept-*} and {@code kafka-network-*} event loops, given the
 * uncaught-exception handler passed to {@link #start} (Netty logs what a task throws and keeps
 * the loop running; the handler sees only a loop thread that dies).
 */
public final class KafkaServer implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(KafkaServer.class);

    /** A listener to bind: name (e.g. PLAINTEXT), host (empty = all interfaces) and port (0 = any free). */
    public record Listener(String name, String host, int port) {
    }

    private final EventLoopGroup boss;
    private final EventLoopGroup workers;
    private final Map<String, Channel> bound = new LinkedHashMap<>();
    private final AtomicLong connections = new AtomicLong();

    private KafkaServer(int networkThreads, Thread.UncaughtExceptionHandler handler) {
        this.boss = new NioEventLoopGroup(1, threads("kafka-accept", handler));
        this.workers = new NioEventLoopGroup(networkThreads, threads("kafka-network", handler));
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

    /** Binds every listener; fails (and releases what was bound) if one cannot be bound. */
    public static KafkaServer start(List<Listener> listeners, int maxRequestBytes, int networkThreads,
            RequestDispatcher dispatcher) throws InterruptedException {
        return start(listeners, maxRequestBytes, networkThreads, dispatcher, (thread, error) -> log.error(
                "Uncaught exception on network thread {}", thread.getName(), error));
    }

    /** As above, the event loops' threads carrying {@code handler}. */
    public static KafkaServer start(List<Listener> listeners, int maxRequestBytes, int networkThreads,
            RequestDispatcher dispatcher, Thread.UncaughtExceptionHandler handler) throws InterruptedException {
        KafkaServer server = new KafkaServer(networkThreads, handler);
        try {
            for (Listener l : listeners) {
                server.bind(l, maxRequestBytes, dispatcher);
            }
            return server;
        } catch (RuntimeException | InterruptedException e) {
            server.close();
            throw e;
        }
    }

    private void bind(Listener listener, int maxRequestBytes, RequestDispatcher dispatcher) throws InterruptedException {
        ServerBootstrap b = new ServerBootstrap()
                .group(boss, workers)
                .channel(NioServerSocketChannel.class)
                .option(ChannelOption.SO_BACKLOG, 1024)
                .option(ChannelOption.SO_REUSEADDR, true)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        String id = listener.name() + "-" + connections.incrementAndGet();
                        // failFast: an oversized frame is refused on its length prefix, before its bytes are buffered.
                        ch.pipeline().addLast("frames", new LengthFieldBasedFrameDecoder(maxRequestBytes, 0, 4, 0, 4,
                                true));
                        ch.pipeline().addLast("requests", new ConnectionHandler(dispatcher, listener.name(), id));
                    }
                });
        InetSocketAddress address = listener.host().isEmpty() ? new InetSocketAddress(listener.port())
                : new InetSocketAddress(listener.host(), listener.port());
        Channel channel = b.bind(address).sync().channel();
        bound.put(listener.name(), channel);
        log.info("Listening for Kafka clients on {} ({})", channel.localAddress(), listener.name());
    }

    /** The port a listener is bound to (useful with port 0). */
    public int port(String listenerName) {
        Channel c = bound.get(listenerName);
        if (c == null) {
            throw new IllegalArgumentException("no listener " + listenerName);
        }
        return ((InetSocketAddress) c.localAddress()).getPort();
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

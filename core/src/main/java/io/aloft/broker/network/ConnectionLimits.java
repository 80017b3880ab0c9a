package io.aloft.broker.network;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.EventLoop;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.RejectedExecutionException;

/**
 * {@code max.connections}, {@code max.connections.per.ip} and {@code max.connections.per.ip.overrides},
 * applied where connections are accepted, before a connection gets a network thread, as Kafka does:
 * <ul>
 *   <li>A connection from an address that already has its maximum is closed at once (the client
 *       sees its connection accepted and then closed, and reconnects after its backoff), with a
 *       rate-limited WARN line.
 *   <li>Once the broker has {@code max.connections}, it stops accepting on every listener (Kafka
 *       "blocks" new connections): clients wait in the listen backlog, and are accepted as
 *       connections close. A connection accepted in the same batch as the one that reached the
 *       limit is closed at once.
 * </ul>
 *
 * <p>Confined to the accept event loop ({@code kafka-accept}, one thread for all listeners); a
 * connection's close is handed over to it.
 */
final class ConnectionLimits {
    private final int maxConnections;
    private final int maxPerIp;
    private final Map<InetAddress, Integer> perIpOverrides;
    private final RateLimitedWarnings refusals;
    private final EventLoop acceptLoop;
    private final List<Channel> serverChannels = new ArrayList<>();
    private final Map<InetAddress, Integer> perIp = new HashMap<>();
    private int total;
    private boolean accepting = true;
    private final Refusals refused;

    /** Told of each refused connection: its listener, and whether the per-address limit refused it. */
    interface Refusals {
        void refused(String listenerName, boolean perIp);
    }

    ConnectionLimits(int maxConnections, int maxPerIp, Map<InetAddress, Integer> perIpOverrides,
            RateLimitedWarnings refusals, EventLoop acceptLoop, Refusals refused) {
        this.refused = refused;
        this.maxConnections = maxConnections;
        this.maxPerIp = maxPerIp;
        this.perIpOverrides = Map.copyOf(perIpOverrides);
        this.refusals = refusals;
        this.acceptLoop = acceptLoop;
    }

    /** A new handler for one listener's server channel (each listener has its own; they share the counts). */
    ChannelHandler acceptHandler(String listenerName) {
        return new ChannelInboundHandlerAdapter() {
            @Override
            public void handlerAdded(ChannelHandlerContext ctx) {
                serverChannels.add(ctx.channel());
                ctx.channel().config().setAutoRead(accepting);
            }

            @Override
            public void handlerRemoved(ChannelHandlerContext ctx) {
                serverChannels.remove(ctx.channel());
            }

            @Override
            public void channelRead(ChannelHandlerContext ctx, Object msg) {
                Channel child = (Channel) msg;
                if (admit(listenerName, child)) {
                    ctx.fireChannelRead(child); // on to the bootstrap, which gives it a network thread
                }
            }
        };
    }

    private boolean admit(String listenerName, Channel child) {
        InetAddress address = ((InetSocketAddress) child.remoteAddress()).getAddress();
        int fromAddress = perIp.getOrDefault(address, 0);
        int limit = perIpOverrides.getOrDefault(address, maxPerIp);
        if (fromAddress >= limit) {
            refusals.warn("max.connections.per.ip", "Refused a connection to {} from {}: the address already has "
                    + "the configured maximum of {} connections (max.connections.per.ip{})", listenerName,
                    address.getHostAddress(), limit, perIpOverrides.containsKey(address) ? ".overrides" : "");
            refused.refused(listenerName, true); // counted before the client can see the close
            child.unsafe().closeForcibly();
            return false;
        }
        if (total >= maxConnections) {
            refusals.warn("max.connections", "Refused a connection to {} from {}: the broker already has the "
                    + "configured maximum of {} connections (max.connections)", listenerName,
                    address.getHostAddress(), maxConnections);
            refused.refused(listenerName, false); // counted before the client can see the close
            child.unsafe().closeForcibly();
            return false;
        }
        total++;
        perIp.merge(address, 1, Integer::sum);
        child.closeFuture().addListener(f -> {
            try {
                acceptLoop.execute(() -> closed(address));
            } catch (RejectedExecutionException e) {
                // The server is shutting down: nothing is accepted any more, so nothing to count.
            }
        });
        if (total >= maxConnections) {
            setAccepting(false);
        }
        return true;
    }

    private void closed(InetAddress address) {
        total--;
        perIp.computeIfPresent(address, (a, n) -> n == 1 ? null : n - 1);
        if (total < maxConnections) {
            setAccepting(true);
        }
    }

    private void setAccepting(boolean on) {
        if (accepting != on) {
            accepting = on;
            for (Channel c : serverChannels) {
                c.config().setAutoRead(on);
            }
        }
    }

    /** Connections open now (for tests; on the accept loop). */
    int total() {
        return total;
    }
}

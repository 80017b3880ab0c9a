package io.aloft.broker.network;

import io.netty.channel.Channel;
import java.util.EnumSet;

/**
 * The one owner of a connection's {@code autoRead}: the connection reads from its socket only while
 * no {@link Reason} holds it back. Several handlers pause for reasons of their own (requests in
 * flight, the memory budget); one flag toggled by each would let one handler resume reading that
 * another had paused.
 *
 * <p>Confined to the connection's event loop.
 */
final class ReadPauses {
    enum Reason {
        /** Too many requests of this connection are waiting for their responses. */
        IN_FLIGHT,
        /** The connection's own share of the request memory is taken by requests not yet handled. */
        CONNECTION_MEMORY,
        /** The broker-wide request memory pool has no room for the frame whose size was just read. */
        POOL_MEMORY,
        /**
         * The client is over a quota: nothing is read until its throttle time, sent in the last
         * response, has passed (KIP-219: the client backs off by itself too).
         */
        THROTTLED,
        /** The connection is closing: nothing more is read. */
        CLOSING
    }

    private final Channel channel;
    private final EnumSet<Reason> reasons = EnumSet.noneOf(Reason.class);

    ReadPauses(Channel channel) {
        this.channel = channel;
    }

    void pause(Reason reason) {
        if (reasons.add(reason)) {
            channel.config().setAutoRead(false);
        }
    }

    /** Lifts {@code reason}; reading resumes (Netty issues a read) when no other reason holds. */
    void resume(Reason reason) {
        if (reasons.remove(reason) && reasons.isEmpty()) {
            channel.config().setAutoRead(true);
        }
    }

    boolean paused(Reason reason) {
        return reasons.contains(reason);
    }
}

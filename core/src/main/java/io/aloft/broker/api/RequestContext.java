package io.aloft.broker.api;

import io.aloft.broker.security.sasl.SaslSession;
import java.net.InetSocketAddress;
import org.apache.kafka.common.requests.RequestHeader;

/**
 * Who sent a request and how: what a handler may need beyond the request body.
 *
 * @param header the parsed request header (API key and version, client id, correlation id)
 * @param listenerName the listener the connection came in on
 * @param clientAddress the peer's address
 * @param connectionId unique per connection, for logs
 * @param sasl the connection's SASL state on a SASL listener (confined to its event loop), else null
 */
public record RequestContext(RequestHeader header, String listenerName, InetSocketAddress clientAddress,
        String connectionId, SaslSession sasl) {

    /** A context on a listener without SASL. */
    public RequestContext(RequestHeader header, String listenerName, InetSocketAddress clientAddress,
            String connectionId) {
        this(header, listenerName, clientAddress, connectionId, null);
    }
}

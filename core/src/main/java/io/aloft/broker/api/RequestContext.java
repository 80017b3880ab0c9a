package io.aloft.broker.api;

import io.aloft.broker.security.sasl.SaslSession;
import io.aloft.broker.security.ConnectionSecurity;
import io.aloft.broker.security.Principal;
import java.net.InetSocketAddress;
import org.apache.kafka.common.requests.RequestHeader;

/**
 * Who sent a request and how: what a handler may need beyond the request body.
 *
 * @param header the parsed request header (API key and version, client id, correlation id)
 * @param listenerName the listener the connection came in on
 * @param clientAddress the peer's address
 * @param connectionId unique per connection, for logs
 * @param security the connection's security protocol and principal (shared by its requests; SASL
 *        authentication updates it)
 * @param sasl the connection's SASL exchange state on a SASL listener (confined to its event loop),
 *        else null
 */
public record RequestContext(RequestHeader header, String listenerName, InetSocketAddress clientAddress,
        String connectionId, ConnectionSecurity security, SaslSession sasl) {
    /** A request of a connection without SASL. */
    public RequestContext(RequestHeader header, String listenerName, InetSocketAddress clientAddress,
            String connectionId, ConnectionSecurity security) {
        this(header, listenerName, clientAddress, connectionId, security, null);
    }

    /** A PLAINTEXT connection's request, as {@link Principal#ANONYMOUS} (tests, internal callers). */
    public RequestContext(RequestHeader header, String listenerName, InetSocketAddress clientAddress,
            String connectionId) {
        this(header, listenerName, clientAddress, connectionId, ConnectionSecurity.plaintext(listenerName));
    }

    /** The principal the connection has authenticated as, as of now. */
    public Principal principal() {
        return security.principal();
    }
}

package io.aloft.broker.api;

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
 */
public record RequestContext(RequestHeader header, String listenerName, InetSocketAddress clientAddress,
        String connectionId, ConnectionSecurity security) {
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

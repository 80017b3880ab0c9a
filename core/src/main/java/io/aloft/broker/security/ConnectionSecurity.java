package io.aloft.broker.security;

import org.apache.kafka.common.security.auth.SecurityProtocol;

/**
 * The security state of one client connection: its listener's protocol and the principal it has
 * authenticated as so far. A PLAINTEXT connection is {@link Principal#ANONYMOUS} for good; an SSL one
 * gets its client certificate's mapped name when the TLS handshake completes (before any request is
 * read); a SASL one (to come) is set by the SaslAuthenticate handler through {@link #authenticated}.
 * Every request's {@code RequestContext} carries its connection's instance, so handlers (and ACL
 * checks) read the principal as of the request.
 *
 * <p>Thread-safe: written on the connection's event loop or by a handler's thread, read by handlers
 * on any thread ({@code volatile}).
 */
public final class ConnectionSecurity {
    private final String listenerName;
    private final SecurityProtocol protocol;
    private volatile Principal principal = Principal.ANONYMOUS;

    public ConnectionSecurity(String listenerName, SecurityProtocol protocol) {
        this.listenerName = listenerName;
        this.protocol = protocol;
    }

    /** A PLAINTEXT connection's state on {@code listenerName} (for tests and internal callers). */
    public static ConnectionSecurity plaintext(String listenerName) {
        return new ConnectionSecurity(listenerName, SecurityProtocol.PLAINTEXT);
    }

    public String listenerName() {
        return listenerName;
    }

    public SecurityProtocol protocol() {
        return protocol;
    }

    /** The principal now: {@link Principal#ANONYMOUS} until authenticated. */
    public Principal principal() {
        return principal;
    }

    /** Records that the connection has authenticated as {@code principal} (TLS handshake, SASL). */
    public void authenticated(Principal principal) {
        this.principal = java.util.Objects.requireNonNull(principal, "principal");
    }

    @Override
    public String toString() {
        return listenerName + "/" + protocol + "/" + principal;
    }
}

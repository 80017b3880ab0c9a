package io.aloft.broker.api;

import io.aloft.broker.security.sasl.SaslSession;
import io.aloft.broker.security.ConnectionSecurity;
import io.aloft.broker.security.Principal;
import io.aloft.broker.security.acl.Authorizer;
import java.net.InetSocketAddress;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.resource.ResourceType;
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
 * @param authorizer the broker's ACLs, or null when no authorizer is configured (everything is
 *        allowed); the dispatcher sets it ({@link #withAuthorizer}), so connections need not know it
 */
public record RequestContext(RequestHeader header, String listenerName, InetSocketAddress clientAddress,
        String connectionId, ConnectionSecurity security, SaslSession sasl, Authorizer authorizer) {
    /** A request without an authorizer (the dispatcher adds the broker's). */
    public RequestContext(RequestHeader header, String listenerName, InetSocketAddress clientAddress,
            String connectionId, ConnectionSecurity security, SaslSession sasl) {
        this(header, listenerName, clientAddress, connectionId, security, sasl, null);
    }

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

    /** This context checked against {@code acls} (null: no authorizer). */
    public RequestContext withAuthorizer(Authorizer acls) {
        return new RequestContext(header, listenerName, clientAddress, connectionId, security, sasl, acls);
    }

    /**
     * The one authorization check of every handler: whether this request's principal, from its client
     * address, may do {@code op} on resource {@code name} of {@code type} (for the cluster, name
     * {@link Authorizer#CLUSTER_NAME}). Always true without an authorizer. Handlers turn a refusal
     * into the error code Kafka gives for that API and resource.
     */
    public boolean authorized(AclOperation op, ResourceType type, String name) {
        return authorizer == null || authorizer.authorize(principal(), host(), op, type, name);
    }

    /** {@link #authorized} on the cluster resource. */
    public boolean authorizedOnCluster(AclOperation op) {
        return authorized(op, ResourceType.CLUSTER, Authorizer.CLUSTER_NAME);
    }

    /**
     * Whether the principal may do {@code op} on some resource of {@code type} (see
     * {@link Authorizer#authorizeAny}).
     */
    public boolean authorizedOnAny(AclOperation op, ResourceType type) {
        return authorizer == null || authorizer.authorizeAny(principal(), host(), op, type);
    }

    /** The client's IP address as ACL hosts name it. */
    private String host() {
        return clientAddress == null || clientAddress.getAddress() == null ? "" : clientAddress.getAddress()
                .getHostAddress();
    }
}

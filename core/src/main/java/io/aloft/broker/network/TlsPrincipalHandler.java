package io.aloft.broker.network;

import io.aloft.broker.security.ConnectionSecurity;
import io.aloft.broker.security.Principal;
import io.aloft.broker.security.PrincipalMappingRules;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLPeerUnverifiedException;

/**
 * Sits right behind the {@link SslHandler} of an SSL listener's connection. When the TLS handshake
 * completes it sets the connection's principal: the client certificate's subject DN (RFC 2253)
 * mapped by {@code ssl.principal.mapping.rules}, or {@link Principal#ANONYMOUS} when the client
 * presented none (client auth none or requested). The SslHandler passes no application data on
 * before that, so no request is read before the principal is known. On a SASL_SSL listener (no
 * mapping rules given) the certificate, if any, is only checked for trust: the principal is the
 * SASL user, set later, as in Kafka.
 *
 * <p>A failed handshake (no or untrusted client certificate when one is required, a DN no mapping
 * rule applies to — the listener's trust manager checks that during the handshake — no common
 * protocol or cipher, not TLS at all) is a failed authentication: one
 * (rate-limited) WARN line naming the peer and the reason, no secrets, and the connection closes,
 * as Kafka's does; the client sees an {@code SslAuthenticationException}.
 *
 * <p>Confined to the connection's event loop.
 */
final class TlsPrincipalHandler extends ChannelInboundHandlerAdapter {
    private final ConnectionSecurity security;
    private final PrincipalMappingRules rules;
    private final String connectionId;
    private final RateLimitedWarnings failedAuthentications;
    private boolean failed;

    /** @param rules how certificates name principals; null on SASL_SSL, where they name none */
    TlsPrincipalHandler(ConnectionSecurity security, PrincipalMappingRules rules, String connectionId,
            RateLimitedWarnings failedAuthentications) {
        this.security = security;
        this.rules = rules;
        this.connectionId = connectionId;
        this.failedAuthentications = failedAuthentications;
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) throws Exception {
        if (evt instanceof SslHandshakeCompletionEvent done) {
            if (!done.isSuccess()) {
                fail(ctx, "TLS handshake failed: " + rootMessage(done.cause()));
                return;
            }
            SslHandler tls = ctx.pipeline().get(SslHandler.class);
            String dn = rules == null ? null : peerDn(tls);
            if (dn != null) {
                try {
                    security.authenticated(Principal.user(rules.name(dn)));
                } catch (IllegalArgumentException e) {
                    fail(ctx, e.getMessage());
                    return;
                }
            }
        }
        super.userEventTriggered(ctx, evt);
    }

    /** The client certificate's subject DN, or null if the client presented none. */
    private static String peerDn(SslHandler tls) {
        try {
            Certificate[] chain = tls.engine().getSession().getPeerCertificates();
            if (chain.length > 0 && chain[0] instanceof X509Certificate x509) {
                return x509.getSubjectX500Principal().getName();
            }
            return null;
        } catch (SSLPeerUnverifiedException e) {
            return null;
        }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        if (hasSslCause(cause)) {
            // The handshake-completion event reports it too; one line per connection.
            fail(ctx, "TLS failure: " + rootMessage(cause));
            return;
        }
        ctx.fireExceptionCaught(cause);
    }

    private void fail(ChannelHandlerContext ctx, String why) {
        if (failed) {
            return;
        }
        failed = true;
        failedAuthentications.warn(security.listenerName(), "Failed authentication of connection {} from {} on "
                + "listener {}: {}", connectionId, ctx.channel().remoteAddress(), security.listenerName(), why);
        ctx.close();
    }

    private static boolean hasSslCause(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (c instanceof SSLException) {
                return true;
            }
        }
        return false;
    }

    private static String rootMessage(Throwable t) {
        Throwable root = t;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        String message = root.getClass().getSimpleName() + ": " + root.getMessage();
        // Netty's NotSslRecordException quotes the client's bytes in hex: enough to recognise plaintext.
        return message.length() > 300 ? message.substring(0, 300) + "…" : message;
    }
}

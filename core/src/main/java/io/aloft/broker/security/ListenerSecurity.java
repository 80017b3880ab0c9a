package io.aloft.broker.security;

import io.netty.handler.ssl.SslContext;
import java.util.Objects;
import org.apache.kafka.common.security.auth.SecurityProtocol;

/**
 * What a listener's connections need to secure themselves: its protocol and, for SSL, the server's
 * TLS context (built once, at start) and how client certificates map to principals. Immutable.
 *
 * @param protocol the listener's security protocol
 * @param sslContext the TLS context for SSL and SASL_SSL; null otherwise
 * @param principalRules {@code ssl.principal.mapping.rules} of the listener (unused without TLS)
 */
public record ListenerSecurity(SecurityProtocol protocol, SslContext sslContext,
        PrincipalMappingRules principalRules) {
    public ListenerSecurity {
        Objects.requireNonNull(protocol, "protocol");
        Objects.requireNonNull(principalRules, "principalRules");
        boolean tls = protocol == SecurityProtocol.SSL || protocol == SecurityProtocol.SASL_SSL;
        if (tls != (sslContext != null)) {
            throw new IllegalArgumentException(protocol + (tls ? " needs" : " takes no") + " TLS context");
        }
    }

    public static final ListenerSecurity PLAINTEXT = new ListenerSecurity(SecurityProtocol.PLAINTEXT, null,
            PrincipalMappingRules.DEFAULT);

    /** An SSL listener's: the context built from {@code config}. */
    public static ListenerSecurity ssl(SslConfig config) {
        return of(SecurityProtocol.SSL, config);
    }

    /**
     * A listener of {@code protocol}: with TLS (SSL, SASL_SSL) the context built from {@code tls},
     * which is ignored (and may be null) otherwise.
     *
     * @throws io.aloft.config.ConfigException naming the ssl.* key that cannot be used
     */
    public static ListenerSecurity of(SecurityProtocol protocol, SslConfig tls) {
        boolean usesTls = protocol == SecurityProtocol.SSL || protocol == SecurityProtocol.SASL_SSL;
        if (!usesTls) {
            return new ListenerSecurity(protocol, null, PrincipalMappingRules.DEFAULT);
        }
        return new ListenerSecurity(protocol, ServerSslContexts.build(tls), tls.principalMappingRules());
    }

    public boolean tls() {
        return sslContext != null;
    }
}

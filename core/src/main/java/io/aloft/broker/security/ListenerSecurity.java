package io.aloft.broker.security;

import io.netty.handler.ssl.SslContext;
import java.util.Objects;
import org.apache.kafka.common.security.auth.SecurityProtocol;

/**
 * What a listener's connections need to secure themselves: its protocol and, for SSL and SASL_SSL,
 * the server's TLS context (built at start, then reloaded when its files change) and how client
 * certificates map to principals. Immutable (the TLS context it hands out may change).
 *
 * @param protocol the listener's security protocol
 * @param tlsContext the TLS context for SSL and SASL_SSL; null otherwise
 * @param principalRules {@code ssl.principal.mapping.rules} of the listener (unused without TLS)
 */
public record ListenerSecurity(SecurityProtocol protocol, ReloadableSslContext tlsContext,
        PrincipalMappingRules principalRules) {
    public ListenerSecurity {
        Objects.requireNonNull(protocol, "protocol");
        Objects.requireNonNull(principalRules, "principalRules");
        boolean usesTls = protocol == SecurityProtocol.SSL || protocol == SecurityProtocol.SASL_SSL;
        if (usesTls != (tlsContext != null)) {
            throw new IllegalArgumentException(protocol + (usesTls ? " needs" : " takes no") + " TLS context");
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
        return new ListenerSecurity(protocol, ReloadableSslContext.build(tls), tls.principalMappingRules());
    }

    /** Whether connections start with a TLS handshake. */
    public boolean tls() {
        return tlsContext != null;
    }

    /** The TLS context for a new connection (the latest reloaded); null without TLS. */
    public SslContext sslContext() {
        return tlsContext == null ? null : tlsContext.current();
    }
}

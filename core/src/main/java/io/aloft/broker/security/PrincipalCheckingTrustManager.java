package io.aloft.broker.security;

import java.net.Socket;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.X509ExtendedTrustManager;

/**
 * The listener's trust manager, plus one check on client certificates: that
 * {@code ssl.principal.mapping.rules} give the certificate's DN a name. A client whose DN no rule
 * applies to then fails the TLS handshake itself (kafka-clients report an
 * {@code SslAuthenticationException} at once) instead of having its connection closed after a
 * successful handshake, which clients would retry until their timeout. Thread-safe (stateless
 * besides its immutable delegate and rules).
 */
final class PrincipalCheckingTrustManager extends X509ExtendedTrustManager {
    private final X509ExtendedTrustManager delegate;
    private final PrincipalMappingRules rules;

    PrincipalCheckingTrustManager(X509ExtendedTrustManager delegate, PrincipalMappingRules rules) {
        this.delegate = delegate;
        this.rules = rules;
    }

    private void checkName(X509Certificate[] chain) throws CertificateException {
        String dn = chain[0].getSubjectX500Principal().getName();
        try {
            rules.name(dn);
        } catch (IllegalArgumentException e) {
            throw new CertificateException(e.getMessage());
        }
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
            throws CertificateException {
        delegate.checkClientTrusted(chain, authType, engine);
        checkName(chain);
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType, Socket socket)
            throws CertificateException {
        delegate.checkClientTrusted(chain, authType, socket);
        checkName(chain);
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType) throws CertificateException {
        delegate.checkClientTrusted(chain, authType);
        checkName(chain);
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
            throws CertificateException {
        delegate.checkServerTrusted(chain, authType, engine);
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket)
            throws CertificateException {
        delegate.checkServerTrusted(chain, authType, socket);
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType) throws CertificateException {
        delegate.checkServerTrusted(chain, authType);
    }

    @Override
    public X509Certificate[] getAcceptedIssuers() {
        return delegate.getAcceptedIssuers();
    }
}

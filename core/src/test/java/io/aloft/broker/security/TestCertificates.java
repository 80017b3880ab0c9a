package io.aloft.broker.security;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Self-signed certificates for TLS tests, made with the JDK's keytool (one process per key pair):
 * each identity is a PKCS12 key store under a directory, with helpers for trust stores (JKS, PKCS12)
 * and PEM forms. Each test class makes its own. Not thread-safe.
 */
public final class TestCertificates {
    public static final String PASSWORD = "test-pass";
    private final Path dir;

    public TestCertificates(Path dir) {
        this.dir = dir;
    }

    /**
     * A key pair and self-signed certificate for {@code dn} in {@code <alias>.p12} (password
     * {@link #PASSWORD}); the server ones carry SAN ip:127.0.0.1 and dns:localhost, so clients'
     * host name check passes.
     */
    public Path identity(String alias, String dn) throws IOException, InterruptedException {
        Path store = dir.resolve(alias + ".p12");
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "keytool")
                .toString(), "-genkeypair", "-alias", alias, "-keyalg", "EC", "-groupname", "secp256r1",
                "-sigalg", "SHA256withECDSA", "-dname", dn, "-validity", "2", "-storetype", "PKCS12", "-keystore",
                store.toString(), "-storepass", PASSWORD, "-keypass", PASSWORD, "-ext",
                "SAN=ip:127.0.0.1,dns:localhost"));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new IOException("keytool failed: " + out);
        }
        return store;
    }

    /** A trust store of {@code type} (JKS or PKCS12) holding the certificates of {@code identities}. */
    public Path trustStore(String name, String type, Path... identities) throws Exception {
        KeyStore trust = KeyStore.getInstance(type);
        trust.load(null, null);
        for (Path identity : identities) {
            KeyStore ks = load(identity);
            String alias = ks.aliases().nextElement();
            trust.setCertificateEntry(alias, ks.getCertificate(alias));
        }
        Path out = dir.resolve(name);
        try (OutputStream o = Files.newOutputStream(out)) {
            trust.store(o, PASSWORD.toCharArray());
        }
        return out;
    }

    /** The identity's certificate in PEM. */
    public static String certificatePem(Path identity) throws Exception {
        KeyStore ks = load(identity);
        Certificate cert = ks.getCertificate(ks.aliases().nextElement());
        return pem("CERTIFICATE", cert.getEncoded());
    }

    /** The identity's private key, unencrypted PKCS#8 PEM. */
    public static String privateKeyPem(Path identity) throws Exception {
        KeyStore ks = load(identity);
        PrivateKey key = (PrivateKey) ks.getKey(ks.aliases().nextElement(), PASSWORD.toCharArray());
        return pem("PRIVATE KEY", key.getEncoded());
    }

    private static String pem(String type, byte[] der) {
        return "-----BEGIN " + type + "-----\n" + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII))
                .encodeToString(der) + "\n-----END " + type + "-----\n";
    }

    private static KeyStore load(Path identity) throws Exception {
        KeyStore ks = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(identity)) {
            ks.load(in, PASSWORD.toCharArray());
        }
        return ks;
    }
}

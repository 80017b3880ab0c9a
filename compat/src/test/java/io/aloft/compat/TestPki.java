package io.aloft.compat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A small certificate authority for the secured-listener scenarios, made with the JDK's keytool (one
 * process per step) under one directory: a CA; the broker's key pair signed by it (SAN
 * ip:127.0.0.1, dns:localhost) in a PKCS12 key store, and a trust store holding the CA; client key
 * pairs signed by the CA (one of them already expired), and a self-signed "stranger". Clients that
 * are not Java (librdkafka) get PEM files: the CA certificate, and each client's certificate and
 * unencrypted PKCS#8 private key. Not thread-safe.
 */
final class TestPki {
    static final String PASSWORD = "compat-pass";

    private final Path dir;

    private TestPki(Path dir) {
        this.dir = dir;
    }

    /** Makes the CA, the broker's key store and trust store under {@code dir}. */
    static TestPki create(Path dir) throws IOException, InterruptedException {
        Files.createDirectories(dir);
        TestPki pki = new TestPki(dir);
        pki.keytool("-genkeypair", "-alias", "ca", "-keyalg", "EC", "-groupname", "secp256r1", "-dname",
                "CN=Aloft compat CA", "-validity", "3", "-keystore", pki.store("ca").toString(), "-ext", "bc:c");
        pki.keytool("-exportcert", "-rfc", "-alias", "ca", "-keystore", pki.store("ca").toString(), "-file",
                pki.caPem().toString());
        pki.keytool("-importcert", "-noprompt", "-alias", "ca", "-file", pki.caPem().toString(), "-keystore",
                pki.trustStore().toString());
        pki.signed("broker", "CN=localhost,O=Aloft", "SAN=ip:127.0.0.1,dns:localhost", false);
        return pki;
    }

    /** The broker's key store (PKCS12, password {@link #PASSWORD}). */
    Path brokerKeyStore() {
        return store("broker");
    }

    /** A trust store holding the CA (PKCS12). */
    Path trustStore() {
        return dir.resolve("trust.p12");
    }

    /** The CA's certificate in PEM (librdkafka's ssl.ca.location). */
    Path caPem() {
        return dir.resolve("ca.pem");
    }

    /** A client signed by the CA; {@code expired}: its validity ended days ago. Returns its PEM pair. */
    PemPair client(String alias, String dn, boolean expired) throws Exception {
        signed(alias, dn, null, expired);
        return pem(alias);
    }

    /** A client with a self-signed certificate the broker does not trust. */
    PemPair stranger(String alias, String dn) throws Exception {
        keytool("-genkeypair", "-alias", alias, "-keyalg", "EC", "-groupname", "secp256r1", "-dname", dn,
                "-validity", "3", "-keystore", store(alias).toString());
        return pem(alias);
    }

    /** A client's certificate and private key files, PEM. */
    record PemPair(Path certificate, Path key) {
    }

    private void signed(String alias, String dn, String extension, boolean expired) throws IOException,
            InterruptedException {
        Path store = store(alias);
        keytool("-genkeypair", "-alias", alias, "-keyalg", "EC", "-groupname", "secp256r1", "-dname", dn,
                "-validity", "3", "-keystore", store.toString());
        Path csr = dir.resolve(alias + ".csr");
        keytool("-certreq", "-alias", alias, "-keystore", store.toString(), "-file", csr.toString());
        Path crt = dir.resolve(alias + ".crt");
        List<String> gencert = new ArrayList<>(List.of("-gencert", "-alias", "ca", "-keystore",
                store("ca").toString(), "-infile", csr.toString(), "-outfile", crt.toString(), "-rfc"));
        gencert.addAll(expired ? List.of("-startdate", "-10d", "-validity", "2") : List.of("-validity", "3"));
        if (extension != null) {
            gencert.addAll(List.of("-ext", extension));
        }
        keytool(gencert.toArray(String[]::new));
        // The reply must chain to a certificate the store knows: the CA first, then the signed one.
        keytool("-importcert", "-noprompt", "-alias", "ca", "-file", caPem().toString(), "-keystore",
                store.toString());
        Path chain = dir.resolve(alias + "-chain.pem");
        Files.writeString(chain, Files.readString(caPem()) + Files.readString(crt));
        keytool("-importcert", "-noprompt", "-alias", alias, "-file", chain.toString(), "-keystore", store.toString());
    }

    private PemPair pem(String alias) throws Exception {
        KeyStore ks = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(store(alias))) {
            ks.load(in, PASSWORD.toCharArray());
        }
        Path cert = dir.resolve(alias + "-cert.pem");
        Path key = dir.resolve(alias + "-key.pem");
        Files.writeString(cert, pem("CERTIFICATE", ks.getCertificate(alias).getEncoded()));
        Files.writeString(key, pem("PRIVATE KEY", ((PrivateKey) ks.getKey(alias, PASSWORD.toCharArray()))
                .getEncoded()));
        return new PemPair(cert, key);
    }

    private static String pem(String type, byte[] der) {
        return "-----BEGIN " + type + "-----\n" + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII))
                .encodeToString(der) + "\n-----END " + type + "-----\n";
    }

    private Path store(String alias) {
        return dir.resolve(alias + ".p12");
    }

    private void keytool(String... args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "keytool")
                .toString(), "-storetype", "PKCS12", "-storepass", PASSWORD));
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new IOException("keytool " + args[0] + " failed: " + out);
        }
    }
}

package io.aloft.servers;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * One throw-away certificate authority and one server certificate it signed, for brokers on
 * 127.0.0.1: what a benchmark over TLS gives both Apache Kafka and Aloft, so that both present the
 * same certificate and clients check it the same way (host name included: the certificate names
 * {@code IP:127.0.0.1} and {@code DNS:localhost}).
 *
 * <p>Made with the JDK's {@code keytool} (the JDK has no public API to sign a certificate), EC P-256
 * keys and SHA256withECDSA signatures, valid for 30 days. Files, all PKCS12 with the one password
 * {@link #password()}: {@code server.p12} (the server's key and its chain: server, CA) and
 * {@code truststore.p12} (the CA's certificate alone). The CA's own key stays in {@code ca.p12}.
 *
 * <p>Immutable once made.
 */
public final class BenchCertificates {
    private static final String VALIDITY_DAYS = "30";
    private static final String KEY = "-keyalg";

    private final Path keyStore;
    private final Path trustStore;
    private final String password;

    private BenchCertificates(Path keyStore, Path trustStore, String password) {
        this.keyStore = keyStore;
        this.trustStore = trustStore;
        this.password = password;
    }

    /**
     * Makes the CA and the server certificate in {@code dir} (created if missing): seven keytool
     * runs, a few seconds.
     *
     * @param password of every store and key in them
     * @throws IOException if keytool fails (the message has its output)
     */
    public static BenchCertificates generate(Path dir, String password) throws IOException, InterruptedException {
        Files.createDirectories(dir);
        Path ca = dir.resolve("ca.p12");
        Path server = dir.resolve("server.p12");
        Path caPem = dir.resolve("ca.pem");
        Path csr = dir.resolve("server.csr");
        Path serverPem = dir.resolve("server.pem");
        keytool("-genkeypair", "-alias", "ca", KEY, "EC", "-groupname", "secp256r1", "-sigalg", "SHA256withECDSA",
                "-dname", "CN=Aloft benchmark CA", "-ext", "bc:c", "-validity", VALIDITY_DAYS,
                "-storetype", "PKCS12", "-keystore", ca.toString(), "-storepass", password);
        keytool("-exportcert", "-alias", "ca", "-rfc", "-keystore", ca.toString(), "-storepass", password,
                "-file", caPem.toString());
        keytool("-genkeypair", "-alias", "server", KEY, "EC", "-groupname", "secp256r1",
                "-sigalg", "SHA256withECDSA", "-dname", "CN=localhost,O=Aloft benchmark", "-validity", VALIDITY_DAYS,
                "-storetype", "PKCS12", "-keystore", server.toString(), "-storepass", password);
        keytool("-certreq", "-alias", "server", "-keystore", server.toString(), "-storepass", password,
                "-file", csr.toString());
        keytool("-gencert", "-alias", "ca", "-keystore", ca.toString(), "-storepass", password,
                "-infile", csr.toString(), "-outfile", serverPem.toString(), "-rfc", "-validity", VALIDITY_DAYS,
                "-ext", "SAN=ip:127.0.0.1,dns:localhost", "-ext", "eku=serverAuth");
        // The CA first, as a trusted entry, so that keytool can build the chain of the signed reply.
        keytool("-importcert", "-alias", "ca", "-noprompt", "-file", caPem.toString(), "-keystore", server.toString(),
                "-storepass", password);
        keytool("-importcert", "-alias", "server", "-file", serverPem.toString(), "-keystore", server.toString(),
                "-storepass", password);
        Path trust = dir.resolve("truststore.p12");
        writeTrustStore(caPem, trust, password);
        return new BenchCertificates(server, trust, password);
    }

    /** PKCS12: the server's private key (alias {@code server}) with its chain, server then CA. */
    public Path keyStore() {
        return keyStore;
    }

    /** PKCS12: the CA's certificate, all a client needs to trust the server. */
    public Path trustStore() {
        return trustStore;
    }

    /** The password of both stores and of the server's key. */
    public String password() {
        return password;
    }

    private static void writeTrustStore(Path caPem, Path out, String password) throws IOException {
        try (InputStream in = Files.newInputStream(caPem); OutputStream o = Files.newOutputStream(out)) {
            Certificate caCert = CertificateFactory.getInstance("X.509").generateCertificate(in);
            KeyStore trust = KeyStore.getInstance("PKCS12");
            trust.load(null, null);
            trust.setCertificateEntry("ca", caCert);
            trust.store(o, password.toCharArray());
        } catch (GeneralSecurityException e) {
            throw new IOException("cannot write the trust store " + out + ": " + e, e);
        }
    }

    private static void keytool(String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "keytool").toString());
        command.addAll(List.of(args));
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        // Read before waiting: a full pipe would block keytool.
        String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IOException("keytool " + args[0] + " did not finish within 60 s");
        }
        if (p.exitValue() != 0) {
            throw new IOException("keytool " + args[0] + " failed (status " + p.exitValue() + "): " + output.strip());
        }
    }
}

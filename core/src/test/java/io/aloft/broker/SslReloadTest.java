package io.aloft.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.aloft.broker.security.TestCertificates;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.KeyStore;
import java.security.cert.X509Certificate;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.config.SslConfigs;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A renewed key store written over the old one is picked up without a restart: new TLS connections
 * get the new certificate, a client connected before keeps working, and a file that cannot be used
 * leaves the last good certificate in place.
 */
class SslReloadTest {
    @TempDir
    Path dir;

    @Test
    void aReplacedKeyStoreServesNewConnections_andABrokenOneIsIgnored() throws Exception {
        TestCertificates certs = new TestCertificates(dir);
        Path first = certs.identity("first", "CN=localhost,OU=first,O=Aloft");
        Path second = certs.identity("second", "CN=localhost,OU=second,O=Aloft");
        Path trust = certs.trustStore("client-trust.p12", "PKCS12", first, second);
        Path live = dir.resolve("server.p12");
        Files.copy(first, live);
        try (TestBroker broker = new TestBroker(dir.resolve("broker"), Map.of(
                "listeners", "PLAINTEXT://127.0.0.1:0,SSL://127.0.0.1:0",
                "ssl.keystore.type", "PKCS12", "ssl.keystore.location", live.toString(),
                "ssl.keystore.password", TestCertificates.PASSWORD,
                "aloft.ssl.reload.interval.ms", "100"))) {
            int port = broker.broker().port("SSL");
            assertEquals("first", servedUnit(port, trust));
            Properties client = new Properties();
            client.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:" + port);
            client.put(CommonClientConfigs.SECURITY_PROTOCOL_CONFIG, "SSL");
            client.put(SslConfigs.SSL_TRUSTSTORE_TYPE_CONFIG, "PKCS12");
            client.put(SslConfigs.SSL_TRUSTSTORE_LOCATION_CONFIG, trust.toString());
            client.put(SslConfigs.SSL_TRUSTSTORE_PASSWORD_CONFIG, TestCertificates.PASSWORD);
            try (Admin admin = Admin.create(client)) {
                assertEquals(1, admin.describeCluster().nodes().get(30, TimeUnit.SECONDS).size());

                replace(live, Files.readAllBytes(second));
                awaitUnit(port, trust, "second");
                // The client connected before the renewal still works (its connection keeps its session).
                assertEquals(1, admin.describeCluster().nodes().get(30, TimeUnit.SECONDS).size());

                // A truncated file: logged, the last good certificate stays.
                replace(live, new byte[] {0x30, 0x01});
                Thread.sleep(500); // several checks at 100 ms, each of which must keep the last good certificate
                assertEquals("second", servedUnit(port, trust));
                replace(live, Files.readAllBytes(first));
                awaitUnit(port, trust, "first");
            }
            try (Admin fresh = Admin.create(client)) {
                assertEquals(1, fresh.describeCluster().nodes().get(30, TimeUnit.SECONDS).size());
            }
        }
    }

    /** Writes the new contents beside the file and moves them over it, as a careful renewal does. */
    private static void replace(Path file, byte[] contents) throws Exception {
        Path tmp = file.resolveSibling(file.getFileName() + ".new");
        Files.write(tmp, contents);
        Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    private static void awaitUnit(int port, Path trust, String unit) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        String seen = servedUnit(port, trust);
        while (!unit.equals(seen)) {
            assertTrue(System.nanoTime() < deadline, "still served OU=" + seen + ", expected OU=" + unit);
            Thread.sleep(50);
            seen = servedUnit(port, trust);
        }
    }

    /** The OU of the certificate a new TLS connection to {@code port} is served. */
    private static String servedUnit(int port, Path trust) throws Exception {
        KeyStore ks = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(trust)) {
            ks.load(in, TestCertificates.PASSWORD.toCharArray());
        }
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(ks);
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(null, tmf.getTrustManagers(), null);
        try (SSLSocket socket = (SSLSocket) context.getSocketFactory().createSocket("127.0.0.1", port)) {
            socket.startHandshake();
            X509Certificate cert = (X509Certificate) socket.getSession().getPeerCertificates()[0];
            String dn = cert.getSubjectX500Principal().getName();
            return dn.replaceAll(".*OU=([^,]*).*", "$1");
        }
    }
}

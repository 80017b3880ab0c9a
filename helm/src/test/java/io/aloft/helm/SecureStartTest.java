package io.aloft.helm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.aloft.broker.BrokerConfig;
import io.aloft.broker.ServerConfig;
import io.aloft.broker.security.ServerSslContexts;
import io.aloft.broker.security.SslConfig;
import io.netty.handler.ssl.SslContext;
import java.io.StringReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A pod's start, short of the JVM, with real certificates: openssl makes a CA and a broker
 * certificate laid out as cert-manager's Secret (tls.crt, tls.key, ca.crt) or as a PKCS12 key
 * store; the rendered start.sh runs (the Secret's mount and the memory volume pointed at temporary
 * directories) and execs the image's real entrypoint (bin/aloft-container.sh, mode {@code config})
 * with the secrets' env vars as the secretKeyRefs would set them; the server.properties it prints
 * is parsed by the broker's own {@link ServerConfig}, and each SSL listener's TLS context is built
 * by {@link ServerSslContexts} from the files, as the broker does at start. PLAIN users with
 * quotes and backslashes in their passwords survive the trip.
 */
class SecureStartTest {
    @TempDir
    Path dir;
    private Path secret;
    private Path memory;

    @BeforeEach
    void certificates() throws Exception {
        secret = Files.createDirectories(dir.resolve("secret"));
        memory = Files.createDirectories(dir.resolve("memory"));
        openssl("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout",
                dir.resolve("ca.key").toString(), "-out", secret.resolve("ca.crt").toString(), "-subj", "/CN=test-ca", "-days", "2");
        openssl("req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout",
                secret.resolve("tls.key").toString(), "-out", dir.resolve("tls.csr").toString(), "-subj", "/CN=aloft-broker");
        openssl("x509", "-req", "-in", dir.resolve("tls.csr").toString(), "-CA", secret.resolve("ca.crt").toString(),
                "-CAkey", dir.resolve("ca.key").toString(), "-CAcreateserial", "-out", secret.resolve("tls.crt").toString(),
                "-days", "2");
    }

    @Test
    void saslSslExample_pemKeyStoreJoinedAndAccepted() throws Exception {
        Map<String, String> props = start(List.of("-f", Helm.EXAMPLES.resolve("tls-sasl.yaml").toString()), Map.of(
                "ALOFT_PROP_listener_name_client_plain_sasl_jaas_config", Served.PLAIN_JAAS));
        String keystore = Files.readString(memory.resolve("keystore.pem"));
        assertTrue(keystore.startsWith("-----BEGIN PRIVATE KEY-----") && keystore.contains("-----BEGIN CERTIFICATE-----"),
                keystore);
        assertEquals("rw-------", java.nio.file.attribute.PosixFilePermissions.toString(
                Files.getPosixFilePermissions(memory.resolve("keystore.pem"))));
        assertEquals(memory.resolve("keystore.pem").toString(), props.get("ssl.keystore.location"));
        // The INTERNAL listener is SSL and served today: its context is built from the files.
        SslConfig internal = SslConfig.forListener("INTERNAL", props);
        assertNotNull(ServerSslContexts.build(internal));
        java.util.Optional<String> notYet = Served.notYetServed(props);
        if (notYet.isEmpty()) {
            BrokerConfig broker = ServerConfig.fromProperties(props).broker();
            for (SslConfig c : broker.sslConfigs().values()) {
                assertNotNull(ServerSslContexts.build(c), c.listenerName());
            }
        } else {
            assertTrue(List.of("SASL_SSL", "SCRAM-SHA-512").contains(notYet.get()), notYet.get());
        }
    }

    @Test
    void sslWithClientAuth_andSaslPlaintextUsers_startAsTheBrokerReadsThem() throws Exception {
        String jaas = "org.apache.kafka.common.security.plain.PlainLoginModule required user_alice=\"alice-secret\" "
                + "user_bob=\"b\\\"o\\\\b ${NODE}\";\n";
        Map<String, String> props = start(List.of("--set", String.join(",", "listeners.client.protocol=SASL_PLAINTEXT",
                "listeners.internal.protocol=SSL", "tls.existingSecret=aloft-tls", "sasl.plain.existingSecret=aloft-users")),
                Map.of("ALOFT_PROP_listener_name_client_plain_sasl_jaas_config", jaas));
        BrokerConfig broker = ServerConfig.fromProperties(props).broker();
        assertTrue(broker.saslSettings("CLIENT").plainUsers().check("bob", "b\"o\\b ${NODE}"));
        assertTrue(broker.saslSettings("CLIENT").plainUsers().check("alice", "alice-secret"));
        SslContext internal = ServerSslContexts.build(broker.sslConfigs().get("INTERNAL"));
        assertNotNull(internal);

        props = start(List.of("--set", "listeners.client.protocol=SSL,tls.existingSecret=aloft-tls,tls.clientAuth=required"),
                Map.of());
        broker = ServerConfig.fromProperties(props).broker();
        assertEquals(SslConfig.ClientAuth.REQUIRED, broker.sslConfigs().get("CLIENT").clientAuth());
        assertNotNull(ServerSslContexts.build(broker.sslConfigs().get("CLIENT")));
    }

    @Test
    void saslSslPlain_withRequestedClientCertificates() throws Exception {
        Map<String, String> props = start(List.of("--set", String.join(",", "listeners.client.protocol=SASL_SSL",
                "tls.existingSecret=aloft-tls", "tls.clientAuth=requested", "sasl.plain.existingSecret=aloft-users")),
                Map.of("ALOFT_PROP_listener_name_client_plain_sasl_jaas_config", Served.PLAIN_JAAS));
        assertEquals("requested", props.get("listener.name.client.ssl.client.auth"));
        if (Served.notYetServed(props).isPresent()) {
            assertEquals("SASL_SSL", Served.notYetServed(props).get());
            return; // refused naming it: RenderedConfigTest checks that
        }
        BrokerConfig broker = ServerConfig.fromProperties(props).broker();
        assertTrue(broker.saslSettings("CLIENT").plainUsers().check("alice", "alice-secret"));
        assertEquals(SslConfig.ClientAuth.REQUESTED, broker.sslConfigs().get("CLIENT").clientAuth());
        assertNotNull(ServerSslContexts.build(broker.sslConfigs().get("CLIENT")));
    }

    @Test
    void pkcs12KeyStore_withPasswordsFromTheEnvironment() throws Exception {
        openssl("pkcs12", "-export", "-in", secret.resolve("tls.crt").toString(), "-inkey", secret.resolve("tls.key").toString(),
                "-out", secret.resolve("keystore.p12").toString(), "-passout", "pass:ks-pass", "-name", "broker");
        Map<String, String> props = start(List.of("--set", String.join(",", "listeners.client.protocol=SSL",
                "tls.existingSecret=aloft-tls", "tls.format=keystore", "tls.keystore.passwordSecret=aloft-tls-pw")),
                Map.of("ALOFT_PROP_ssl_keystore_password", "ks-pass"));
        assertEquals("ks-pass", props.get("ssl.keystore.password"));
        BrokerConfig broker = ServerConfig.fromProperties(props).broker();
        assertNotNull(ServerSslContexts.build(broker.sslConfigs().get("CLIENT")));
        // The check can fail: the wrong password is refused naming its key.
        Map<String, String> wrong = start(List.of("--set", String.join(",", "listeners.client.protocol=SSL",
                "tls.existingSecret=aloft-tls", "tls.format=keystore", "tls.keystore.passwordSecret=aloft-tls-pw")),
                Map.of("ALOFT_PROP_ssl_keystore_password", "not-it"));
        io.aloft.config.ConfigException e = org.junit.jupiter.api.Assertions.assertThrows(io.aloft.config.ConfigException.class,
                () -> ServerSslContexts.build(ServerConfig.fromProperties(wrong).broker().sslConfigs().get("CLIENT")));
        assertTrue(e.getMessage().contains("ssl.keystore.password"), e.getMessage());
    }

    @Test
    void aPkcs1Key_stopsTheStartNamingTheFix() throws Exception {
        // cert-manager's default encoding (PKCS1; "EC PRIVATE KEY" here) is not what Kafka's PEM key store reads.
        openssl("ec", "-in", secret.resolve("tls.key").toString(), "-out", secret.resolve("tls.key").toString());
        assertTrue(Files.readString(secret.resolve("tls.key")).contains("BEGIN EC PRIVATE KEY"));
        Process p = startProcess(List.of("--set", "listeners.client.protocol=SSL,tls.existingSecret=aloft-tls"), Map.of());
        assertTrue(p.waitFor(30, TimeUnit.SECONDS));
        String err = new String(p.getErrorStream().readAllBytes());
        assertEquals(2, p.exitValue(), err);
        assertTrue(err.contains("is not a PKCS#8 PEM private key (cert-manager: spec.privateKey.encoding: PKCS8)"), err);
        Files.delete(secret.resolve("tls.key"));
        p = startProcess(List.of("--set", "listeners.client.protocol=SSL,tls.existingSecret=aloft-tls"), Map.of());
        assertTrue(p.waitFor(30, TimeUnit.SECONDS));
        err = new String(p.getErrorStream().readAllBytes());
        assertEquals(2, p.exitValue(), err);
        assertTrue(err.contains("tls.key is missing or empty (Secret aloft-tls)"), err);
    }

    /** start.sh then the entrypoint's config mode: the properties the broker would read. */
    private Map<String, String> start(List<String> values, Map<String, String> secretEnv) throws Exception {
        Process p = startProcess(values, secretEnv);
        String out = new String(p.getInputStream().readAllBytes());
        assertTrue(p.waitFor(30, TimeUnit.SECONDS));
        assertEquals(0, p.exitValue(), new String(p.getErrorStream().readAllBytes()));
        Properties props = new Properties();
        props.load(new StringReader(out));
        Map<String, String> map = new HashMap<>();
        props.forEach((k, v) -> map.put(k.toString(), v.toString()));
        return map;
    }

    private Process startProcess(List<String> values, Map<String, String> secretEnv) throws Exception {
        Manifests m = Helm.template(values.toArray(String[]::new));
        var data = m.get("ConfigMap", "aloft-config").path("data");
        // The pod's mounts, here: the Secret and the memory volume are temporary directories.
        Path config = Files.writeString(dir.resolve("server.properties"), mounts(data.path("server.properties").asText()));
        Path start = Files.writeString(dir.resolve("start.sh"), mounts(data.path("start.sh").asText()));
        Map<String, String> env = new HashMap<>();
        for (Map.Entry<String, String> e : Manifests.env(Manifests.container(m.get("StatefulSet", "aloft-broker"))).entrySet()) {
            if (!e.getValue().startsWith("fieldRef:") && !e.getValue().startsWith("secret:")) {
                env.put(e.getKey(), e.getValue().replace("$(POD_NAME)", "aloft-broker-1").replace("$(POD_NAMESPACE)", "streaming"));
            } else if (e.getValue().startsWith("secret:") && e.getKey().startsWith("ALOFT_PROP_")) {
                assertTrue(secretEnv.containsKey(e.getKey()), "the test gives no value for " + e);
            }
        }
        env.putAll(secretEnv);
        env.putAll(Map.of("PATH", "/usr/bin:/bin", "HOSTNAME", "aloft-broker-1", "POD_NAME", "aloft-broker-1",
                "POD_NAMESPACE", "streaming", "HOST_IP", "10.0.0.9", "ALOFT_CONFIG_FILE", config.toString(),
                "ALOFT_ENTRYPOINT", Helm.ROOT.resolve("bin/aloft-container.sh").toString()));
        List<String> command = new ArrayList<>(List.of("/bin/sh", start.toString(), "config"));
        ProcessBuilder pb = new ProcessBuilder(command);
        pb.environment().clear();
        pb.environment().putAll(env);
        return pb.start();
    }

    private String mounts(String text) {
        return text.replace("/etc/aloft-tls", secret.toString()).replace("/var/run/aloft/tls", memory.toString());
    }

    private void openssl(String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of("openssl"));
        command.addAll(List.of(args));
        Helm.Result r = Helm.exec(command, 60);
        if (r.exit() != 0) {
            throw new AssertionError("openssl " + String.join(" ", args) + ":\n" + r.stderr() + r.stdout());
        }
    }
}

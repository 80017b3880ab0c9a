package io.aloft.compat;

import io.aloft.servers.ChildBroker;
import io.aloft.servers.FreePorts;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ScramCredentialInfo;
import org.apache.kafka.clients.admin.ScramMechanism;
import org.apache.kafka.clients.admin.UserScramCredentialUpsertion;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import static org.junit.jupiter.api.Assertions.fail;

/**
 * librdkafka (confluent-kafka, Python: {@code compat/python/secure.py}) against Aloft's secured
 * listeners (issue 20): one broker with an SSL listener, an SSL one requiring client certificates
 * (mTLS), a SASL_PLAINTEXT and a SASL_SSL one (PLAIN, SCRAM-SHA-256, SCRAM-SHA-512; the SCRAM users
 * set through kafka-clients' Admin, as kafka-configs.sh does). Each case is a round trip (create a topic,
 * produce, consume with a group, commit) or a denial: a wrong password, an unknown user, a missing,
 * untrusted or expired client certificate are refused with the error librdkafka reports for it, and
 * no metadata is served. The certificates come from a CA made with keytool ({@link TestPki}).
 *
 * <p>Confined to JUnit's test thread; one broker for the class.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SecureClientsTest {
    private static final Duration LIMIT = Duration.ofSeconds(40);
    private static final String CURRENT = "2.16.1";
    private static final String OLD = "2.0.2";
    private static final String PLAIN_USERS = "org.apache.kafka.common.security.plain.PlainLoginModule required "
            + "user_alice=\"alice-secret\";";

    private final CompatLayout layout = CompatLayout.fromSystemProperties();
    private TestPki pki;
    private TestPki.PemPair client;
    private ChildBroker broker;
    private final Map<String, Integer> ports = new HashMap<>();

    @BeforeAll
    void start() throws Exception {
        Path work = layout.workDir().resolve("secure");
        pki = TestPki.create(work.resolve("pki-" + System.nanoTime()));
        client = pki.client("client", "CN=compat-client,O=Aloft", false);
        List<String> listeners = new ArrayList<>();
        for (String name : List.of("SSL", "MTLS", "SASL_PLAINTEXT", "SASL_SSL")) {
            ports.put(name, FreePorts.next());
            listeners.add(name + "://127.0.0.1:" + ports.get(name));
        }
        Map<String, String> props = new HashMap<>();
        props.put("listeners", String.join(",", listeners));
        props.put("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,SSL:SSL,MTLS:SSL,"
                + "SASL_PLAINTEXT:SASL_PLAINTEXT,SASL_SSL:SASL_SSL");
        props.put("ssl.keystore.type", "PKCS12");
        props.put("ssl.keystore.location", pki.brokerKeyStore().toString());
        props.put("ssl.keystore.password", TestPki.PASSWORD);
        props.put("ssl.truststore.type", "PKCS12");
        props.put("ssl.truststore.location", pki.trustStore().toString());
        props.put("ssl.truststore.password", TestPki.PASSWORD);
        props.put("listener.name.mtls.ssl.client.auth", "required");
        props.put("listener.name.sasl_plaintext.plain.sasl.jaas.config", PLAIN_USERS);
        props.put("listener.name.sasl_ssl.plain.sasl.jaas.config", PLAIN_USERS);
        props.put("sasl.enabled.mechanisms", "PLAIN,SCRAM-SHA-256,SCRAM-SHA-512");
        // Denials answer at once: the per-address back-off would slow the denied cases down.
        props.put("connection.failed.authentication.delay.ms", "0");
        broker = CompatBrokers.aloft(work.resolve("brokers"), props);
        broker.start();
        // SCRAM users, set as operators do (kafka-configs.sh calls the same Admin method), over PLAINTEXT.
        Properties admin = new Properties();
        admin.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrap());
        try (Admin a = Admin.create(admin)) {
            a.alterUserScramCredentials(List.of(
                    new UserScramCredentialUpsertion("sam", new ScramCredentialInfo(ScramMechanism.SCRAM_SHA_256,
                            8192), "sam-secret"),
                    new UserScramCredentialUpsertion("sue", new ScramCredentialInfo(ScramMechanism.SCRAM_SHA_512,
                            4096), "sue-secret"))).all().get(30, TimeUnit.SECONDS);
        }
    }

    @AfterAll
    void stop() {
        if (broker != null) {
            broker.stop();
        }
    }

    // ---- TLS --------------------------------------------------------------------------------------

    @Test
    void librdkafka_ssl_roundTrip() throws Exception {
        run(CURRENT, "ssl", "SSL", tls(), List.of());
    }

    @Test
    void librdkafka_2_0_ssl_roundTrip() throws Exception {
        run(OLD, "ssl-old", "SSL", tls(), List.of());
    }

    @Test
    void librdkafka_mtls_roundTrip() throws Exception {
        run(CURRENT, "mtls", "MTLS", withCertificate(client), List.of());
    }

    @Test
    void librdkafka_mtls_noCertificate_denied() throws Exception {
        run(CURRENT, "mtls-none", "MTLS", tls(), denied("_SSL,_TRANSPORT", "certificate"));
    }

    @Test
    void librdkafka_mtls_untrustedCertificate_denied() throws Exception {
        TestPki.PemPair stranger = pki.stranger("stranger", "CN=stranger,O=Elsewhere");
        run(CURRENT, "mtls-untrusted", "MTLS", withCertificate(stranger), denied("_SSL,_TRANSPORT", "certificate"));
    }

    @Test
    void librdkafka_mtls_expiredCertificate_denied() throws Exception {
        TestPki.PemPair expired = pki.client("expired", "CN=expired,O=Aloft", true);
        run(CURRENT, "mtls-expired", "MTLS", withCertificate(expired), denied("_SSL,_TRANSPORT", "certificate"));
    }

    // ---- SASL PLAIN -------------------------------------------------------------------------------

    @Test
    void librdkafka_saslPlaintext_plain_roundTrip() throws Exception {
        run(CURRENT, "sasl-plaintext-plain", "SASL_PLAINTEXT", sasl("PLAIN", "alice", "alice-secret"), List.of());
    }

    @Test
    void librdkafka_saslSsl_plain_roundTrip() throws Exception {
        List<String> args = new ArrayList<>(tls());
        args.addAll(sasl("PLAIN", "alice", "alice-secret"));
        run(CURRENT, "sasl-ssl-plain", "SASL_SSL", args, List.of());
    }

    @Test
    void librdkafka_2_0_saslSsl_plain_roundTrip() throws Exception {
        List<String> args = new ArrayList<>(tls());
        args.addAll(sasl("PLAIN", "alice", "alice-secret"));
        run(OLD, "sasl-ssl-plain-old", "SASL_SSL", args, List.of());
    }

    @Test
    void librdkafka_saslSsl_plain_wrongPassword_denied() throws Exception {
        List<String> args = new ArrayList<>(tls());
        args.addAll(sasl("PLAIN", "alice", "not-her-password"));
        run(CURRENT, "sasl-ssl-plain-wrong", "SASL_SSL", args, denied("_AUTHENTICATION",
                "Invalid username or password"));
    }

    @Test
    void librdkafka_saslPlaintext_plain_unknownUser_denied() throws Exception {
        run(CURRENT, "sasl-plaintext-unknown", "SASL_PLAINTEXT", sasl("PLAIN", "mallory", "alice-secret"),
                denied("_AUTHENTICATION", "Invalid username or password"));
    }

    // ---- SASL SCRAM ---------------------------------------------------------------------------------

    @Test
    void librdkafka_saslSsl_scramSha256_roundTrip() throws Exception {
        List<String> args = new ArrayList<>(tls());
        args.addAll(sasl("SCRAM-SHA-256", "sam", "sam-secret"));
        run(CURRENT, "sasl-ssl-scram-256", "SASL_SSL", args, List.of());
    }

    @Test
    void librdkafka_saslPlaintext_scramSha512_roundTrip() throws Exception {
        run(CURRENT, "sasl-plaintext-scram-512", "SASL_PLAINTEXT", sasl("SCRAM-SHA-512", "sue", "sue-secret"),
                List.of());
    }

    @Test
    void librdkafka_2_0_saslSsl_scramSha512_roundTrip() throws Exception {
        List<String> args = new ArrayList<>(tls());
        args.addAll(sasl("SCRAM-SHA-512", "sue", "sue-secret"));
        run(OLD, "sasl-ssl-scram-512-old", "SASL_SSL", args, List.of());
    }

    @Test
    void librdkafka_saslSsl_scramSha256_wrongPassword_denied() throws Exception {
        List<String> args = new ArrayList<>(tls());
        args.addAll(sasl("SCRAM-SHA-256", "sam", "not-his-password"));
        run(CURRENT, "sasl-ssl-scram-wrong", "SASL_SSL", args, denied("_AUTHENTICATION",
                "invalid credentials with SASL mechanism SCRAM-SHA-256"));
    }

    @Test
    void librdkafka_saslPlaintext_scramSha512_unknownUser_denied() throws Exception {
        run(CURRENT, "sasl-plaintext-scram-unknown", "SASL_PLAINTEXT", sasl("SCRAM-SHA-512", "nobody", "x"),
                denied("_AUTHENTICATION", "invalid credentials with SASL mechanism SCRAM-SHA-512"));
    }

    // ---- helpers ----------------------------------------------------------------------------------

    private List<String> tls() {
        return List.of("--ca", pki.caPem().toString());
    }

    private List<String> withCertificate(TestPki.PemPair pair) {
        return List.of("--ca", pki.caPem().toString(), "--cert", pair.certificate().toString(), "--key",
                pair.key().toString());
    }

    static List<String> sasl(String mechanism, String user, String password) {
        return List.of("--mechanism", mechanism, "--username", user, "--password", password);
    }

    static List<String> denied(String errors, String text) {
        return List.of("--expect", "denied", "--denied-errors", errors, "--denied-text", text);
    }

    /** Runs secure.py against {@code listener} ({@code MTLS} is an SSL listener). */
    private void run(String version, String name, String listener, List<String> credentials, List<String> expect)
            throws Exception {
        String protocol = listener.equals("MTLS") ? "SSL" : listener;
        List<String> args = new ArrayList<>(List.of("--bootstrap", "127.0.0.1:" + ports.get(listener),
                "--security-protocol", protocol, "--topic", "secure-" + name, "--timeout",
                Long.toString(LIMIT.minusSeconds(8).toSeconds())));
        args.addAll(credentials);
        args.addAll(expect);
        ClientCommand command = new PythonClients(layout).secure(version, args);
        BrokerLog brokerLog = BrokerLog.mark(broker, "aloft-secure");
        ClientRun run = ClientRun.run("secure-" + name + "-" + version, command.command(), command.environment(),
                layout.workDir().resolve("secure"), LIMIT);
        if (!run.succeeded() || run.output().lines().noneMatch(l -> l.startsWith("OK "))) {
            fail("against " + broker.description() + ":\n" + run.describe() + "\n\nbroker log during the run:\n"
                    + brokerLog.since(60));
        }
    }
}

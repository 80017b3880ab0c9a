package io.aloft.helm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The listeners, TLS and SASL values as rendered: two named listeners once either is not
 * PLAINTEXT, the certificate Secret mounted read-only (and the PEM key store's memory volume),
 * every secret reaching the broker through a secretKeyRef (never the ConfigMap), ports, the
 * NetworkPolicy keeping INTERNAL to the release, the autoscaler on INTERNAL, and NOTES.txt
 * printing the client settings.
 */
class ChartSecurityTest {
    private static final String POD_DNS = "$(POD_NAME).aloft-headless.$(POD_NAMESPACE).svc.cluster.local";

    @TempDir
    Path dir;

    @Test
    void saslSsl_pemFromCertManagerSecret() throws Exception {
        Manifests m = Helm.template("-f", Helm.EXAMPLES.resolve("tls-sasl.yaml").toString());
        Map<String, String> props = m.serverProperties();
        assertEquals("INTERNAL://:9094,CLIENT://:9092", props.get("listeners"));
        assertEquals("INTERNAL:SSL,CLIENT:SASL_SSL", props.get("listener.security.protocol.map"));
        assertEquals("INTERNAL", props.get("inter.broker.listener.name"));
        assertEquals("PEM", props.get("ssl.keystore.type"));
        assertEquals("/var/run/aloft/tls/keystore.pem", props.get("ssl.keystore.location"));
        assertEquals("PEM", props.get("ssl.truststore.type"));
        assertEquals("/etc/aloft-tls/ca.crt", props.get("ssl.truststore.location"));
        assertEquals("SCRAM-SHA-512,PLAIN", props.get("listener.name.client.sasl.enabled.mechanisms"));
        assertFalse(props.containsKey("listener.name.client.ssl.client.auth"), "clientAuth none: Kafka's default");
        String configMap = m.get("ConfigMap", "aloft-config").toString();
        assertFalse(configMap.contains("jaas") || configMap.contains("password"), configMap);

        for (String sts : List.of("aloft-broker")) {
            JsonNode pod = m.get("StatefulSet", sts).path("spec").path("template").path("spec");
            JsonNode c = pod.path("containers").path(0);
            Map<String, String> env = Manifests.env(c);
            assertEquals("INTERNAL://" + POD_DNS + ":9094,CLIENT://" + POD_DNS + ":9092",
                    env.get("ALOFT_PROP_advertised_listeners"));
            assertEquals("secret:aloft-plain-users/plain-jaas.conf",
                    env.get("ALOFT_PROP_listener_name_client_plain_sasl_jaas_config"));
            assertEquals(List.of("kafka:9092", "internal:9094", "controller:9093", "metrics:9464"), ports(c.path("ports")));
            assertEquals("/etc/aloft-tls", mount(c, "tls").path("mountPath").asText());
            assertTrue(mount(c, "tls").path("readOnly").asBoolean());
            assertEquals("/var/run/aloft/tls", mount(c, "tls-keystore").path("mountPath").asText());
            JsonNode tls = volume(pod, "tls");
            assertEquals("aloft-tls", tls.path("secret").path("secretName").asText());
            assertEquals(0440, tls.path("secret").path("defaultMode").asInt());
            assertEquals("Memory", volume(pod, "tls-keystore").path("emptyDir").path("medium").asText());
        }
        ObjectNode headless = m.get("Service", "aloft-headless");
        assertEquals(List.of("kafka:9092", "internal:9094", "controller:9093", "metrics:9464"),
                ports(headless.path("spec").path("ports")));
        assertEquals(List.of("kafka:9092", "metrics:9464"),
                ports(m.get("Service", "aloft-bootstrap").path("spec").path("ports")), "clients bootstrap on CLIENT only");
        // INTERNAL, like the quorum port, only from this release's pods.
        JsonNode rule = m.get("NetworkPolicy", "aloft").path("spec").path("ingress").path(0);
        assertEquals(List.of(9093, 9094), List.of(rule.path("ports").path(0).path("port").asInt(),
                rule.path("ports").path(1).path("port").asInt()));
        assertEquals("aloft", rule.path("from").path(0).path("podSelector").path("matchLabels")
                .path("app.kubernetes.io/instance").asText());
    }

    @Test
    void keystoreFormat_passwordsFromTheirSecret_andMutualTls() throws Exception {
        Manifests m = Helm.template("--set", String.join(",", "listeners.client.protocol=SSL",
                "tls.existingSecret=aloft-jks", "tls.format=keystore", "tls.keystore.type=JKS",
                "tls.keystore.keystoreKey=broker.jks", "tls.keystore.truststoreKey=trust.jks",
                "tls.keystore.passwordSecret=aloft-jks-pw", "tls.keystore.keyPasswordKey=key-password",
                "tls.keystore.truststorePasswordKey=trust-password", "tls.clientAuth=required",
                "controller.mode=dedicated"));
        Map<String, String> props = m.serverProperties();
        assertEquals("INTERNAL:PLAINTEXT,CLIENT:SSL", props.get("listener.security.protocol.map"));
        assertEquals("JKS", props.get("ssl.keystore.type"));
        assertEquals("/etc/aloft-tls/broker.jks", props.get("ssl.keystore.location"));
        assertEquals("/etc/aloft-tls/trust.jks", props.get("ssl.truststore.location"));
        assertEquals("required", props.get("listener.name.client.ssl.client.auth"));
        for (String sts : List.of("aloft-broker", "aloft-controller")) {
            JsonNode pod = m.get("StatefulSet", sts).path("spec").path("template").path("spec");
            Map<String, String> env = Manifests.env(pod.path("containers").path(0));
            assertEquals("secret:aloft-jks-pw/keystore-password", env.get("ALOFT_PROP_ssl_keystore_password"), sts);
            assertEquals("secret:aloft-jks-pw/key-password", env.get("ALOFT_PROP_ssl_key_password"), sts);
            assertEquals("secret:aloft-jks-pw/trust-password", env.get("ALOFT_PROP_ssl_truststore_password"), sts);
            assertEquals("aloft-jks", volume(pod, "tls").path("secret").path("secretName").asText(), sts);
            assertTrue(volume(pod, "tls-keystore").isMissingNode(), "no PEM key store to build: " + sts);
        }
        assertFalse(m.get("ConfigMap", "aloft-config").path("data").path("start.sh").asText().contains("keystore.pem"));
    }

    @Test
    void defaults_keepOnePlaintextListener_andNoSecrets() throws Exception {
        Manifests m = Helm.template();
        Map<String, String> props = m.serverProperties();
        assertEquals("PLAINTEXT://:9092", props.get("listeners"));
        assertFalse(props.keySet().stream().anyMatch(k -> k.contains("ssl") || k.contains("sasl")
                || k.contains("protocol.map") || k.contains("inter.broker")), props.toString());
        JsonNode pod = m.get("StatefulSet", "aloft-broker").path("spec").path("template").path("spec");
        assertTrue(volume(pod, "tls").isMissingNode());
        assertFalse(Manifests.env(pod.path("containers").path(0)).values().stream().anyMatch(v -> v.startsWith("secret:")));
        assertEquals(List.of("kafka:9092", "controller:9093", "metrics:9464"),
                ports(m.get("Service", "aloft-headless").path("spec").path("ports")));
    }

    @Test
    void autoscaler_connectsToInternal_trustingTheCa() throws Exception {
        Manifests m = Helm.template("--set", String.join(",", "autoscaler.enabled=true", "listeners.client.protocol=SASL_SSL",
                "listeners.internal.protocol=SSL", "tls.existingSecret=aloft-tls", "sasl.mechanisms={SCRAM-SHA-256}"));
        JsonNode pod = m.get("Deployment", "aloft-autoscaler").path("spec").path("template").path("spec");
        List<String> args = new ArrayList<>();
        pod.path("containers").path(0).path("args").forEach(a -> args.add(a.asText()));
        assertEquals(List.of("run", "--policy", "/etc/aloft-autoscaler/policy.yaml", "--bootstrap",
                "aloft-headless.streaming.svc.cluster.local:9094", "--command-config", "/etc/aloft-autoscaler/admin.properties"),
                args);
        assertEquals("security.protocol=SSL\nssl.truststore.type=PEM\nssl.truststore.location=/etc/aloft-tls/ca.crt\n",
                m.get("ConfigMap", "aloft-autoscaler-policy").path("data").path("admin.properties").asText());
        JsonNode ca = volume(pod, "tls-ca").path("secret");
        assertEquals("aloft-tls", ca.path("secretName").asText());
        assertEquals("[{\"key\":\"ca.crt\",\"path\":\"ca.crt\"}]", ca.path("items").toString(), "the CA only, not the key");
        // PLAINTEXT INTERNAL: no admin settings needed.
        m = Helm.template("--set", "autoscaler.enabled=true,listeners.client.protocol=SASL_PLAINTEXT,sasl.plain.existingSecret=u");
        args.clear();
        m.get("Deployment", "aloft-autoscaler").path("spec").path("template").path("spec").path("containers").path(0)
                .path("args").forEach(a -> args.add(a.asText()));
        assertEquals(List.of("run", "--policy", "/etc/aloft-autoscaler/policy.yaml", "--bootstrap",
                "aloft-headless.streaming.svc.cluster.local:9094"), args);
    }

    @Test
    void notes_printTheClientSettings() throws Exception {
        String notes = Helm.notes(dir, "-f", Helm.EXAMPLES.resolve("tls-sasl.yaml").toString());
        assertTrue(notes.contains("security.protocol=SASL_SSL"), notes);
        assertTrue(notes.contains("ssl.truststore.location=/path/to/ca.crt"), notes);
        assertTrue(notes.contains("sasl.mechanism=SCRAM-SHA-512"), notes);
        assertTrue(notes.contains("ScramLoginModule required username="), notes);
        assertTrue(notes.contains("--add-config 'SCRAM-SHA-512=[password="), notes);
        assertTrue(notes.contains("PLAIN users: Secret aloft-plain-users, key plain-jaas.conf"), notes);
        assertFalse(notes.contains("ssl.keystore.location"), "no client certificate without clientAuth: " + notes);
        String mtls = Helm.notes(dir, "--set", "listeners.client.protocol=SSL,tls.existingSecret=t,tls.clientAuth=required");
        assertTrue(mtls.contains("security.protocol=SSL") && mtls.contains("ssl.keystore.location="), mtls);
        assertFalse(mtls.contains("sasl."), mtls);
        String plain = Helm.notes(dir);
        assertTrue(plain.contains("kafka-topics.sh --bootstrap-server aloft-bootstrap.streaming.svc.cluster.local:9092"), plain);
        assertFalse(plain.contains("security.protocol"), plain);
    }

    private static List<String> ports(JsonNode ports) {
        List<String> out = new ArrayList<>();
        ports.forEach(p -> out.add(p.path("name").asText() + ":" + (p.has("containerPort") ? p.path("containerPort")
                : p.path("port")).asInt()));
        return out;
    }

    private static JsonNode mount(JsonNode container, String name) {
        for (JsonNode v : container.path("volumeMounts")) {
            if (name.equals(v.path("name").asText())) {
                return v;
            }
        }
        return com.fasterxml.jackson.databind.node.MissingNode.getInstance();
    }

    private static JsonNode volume(JsonNode podSpec, String name) {
        for (JsonNode v : podSpec.path("volumes")) {
            if (name.equals(v.path("name").asText())) {
                return v;
            }
        }
        return com.fasterxml.jackson.databind.node.MissingNode.getInstance();
    }
}

package io.aloft.helm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.aloft.autoscaler.policy.Policy;
import io.aloft.autoscaler.policy.PolicyLoader;
import io.aloft.broker.ServerConfig;
import io.aloft.config.ConfigException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * What the chart renders, judged by the code that will read it: each pod's broker or controller
 * configuration (the ConfigMap's server.properties plus the keys its environment adds, as the
 * image's entrypoint merges them) through the broker's own parser ({@link ServerConfig}, which
 * rejects a bad value as the broker would at start, and reports unknown keys), and the autoscaler
 * policy through {@link PolicyLoader}.
 */
class RenderedConfigTest {
    @Test
    void everyPodsConfiguration_isAcceptedByTheBroker() throws Exception {
        Map<String, List<String>> renderings = new LinkedHashMap<>();
        renderings.put("defaults", List.of());
        for (Path example : Helm.examples()) {
            renderings.put(example.getFileName().toString(), List.of("-f", example.toString()));
        }
        renderings.put("block+dedicated", List.of("--set", "wal.mode=block,controller.mode=dedicated,controller.voters=1"));
        renderings.put("ssl+mtls+keystore", List.of("--set", String.join(",", "listeners.client.protocol=SSL",
                "tls.existingSecret=aloft-tls", "tls.format=keystore", "tls.keystore.passwordSecret=aloft-tls-passwords",
                "tls.keystore.truststoreKey=truststore.p12", "tls.keystore.truststorePasswordKey=truststore-password",
                "tls.clientAuth=required", "tls.principalMappingRules=RULE:^CN=([^\\,]*)\\,.*$/$1/L\\,DEFAULT")));
        renderings.put("sasl_plaintext+ssl-internal+dedicated", List.of("--set", String.join(",",
                "listeners.client.protocol=SASL_PLAINTEXT", "listeners.internal.protocol=SSL", "tls.existingSecret=aloft-tls",
                "sasl.plain.existingSecret=aloft-users", "controller.mode=dedicated", "external.enabled=true")));
        renderings.put("sasl_ssl+plain+requested", List.of("--set", String.join(",", "listeners.client.protocol=SASL_SSL",
                "tls.existingSecret=aloft-tls", "tls.clientAuth=requested", "sasl.plain.existingSecret=aloft-users")));
        int pods = 0;
        int refused = 0;
        for (Map.Entry<String, List<String>> r : renderings.entrySet()) {
            Manifests m = Helm.template(r.getValue().toArray(String[]::new));
            for (ObjectNode sts : m.ofKind("StatefulSet")) {
                String name = sts.path("metadata").path("name").asText();
                for (int ordinal = 0; ordinal < sts.path("spec").path("replicas").asInt(); ordinal++) {
                    Map<String, String> props = podProperties(m, sts, name + "-" + ordinal, ordinal);
                    String what = r.getKey() + " " + name + "-" + ordinal + " " + props;
                    assertEquals(List.of(), ServerConfig.unknownKeyWarnings(props), what);
                    java.util.Optional<String> notYet = Served.notYetServed(props);
                    if (notYet.isPresent()) {
                        // Rendered for a protocol or mechanism this build of the broker refuses
                        // (SASL_SSL, SCRAM: another change adds them): it must be refused for that.
                        ConfigException e = assertThrows(ConfigException.class, () -> ServerConfig.fromProperties(props), what);
                        assertTrue(e.getMessage().contains(notYet.get()), what + ": " + e.getMessage());
                        refused++;
                        continue;
                    }
                    try {
                        ServerConfig.fromProperties(props);
                    } catch (ConfigException e) {
                        throw new AssertionError(what + ": " + e.getMessage(), e);
                    }
                    pods++;
                }
            }
        }
        assertTrue(pods >= 15, "pods checked: " + pods + " (refused as not yet served: " + refused + ")");
    }

    @Test
    void theParserCatchesABadValue() throws Exception {
        // The check can fail: a WAL capacity the broker refuses (not a multiple of 4096, which the
        // schema would also refuse) passed through brokers.config instead.
        Manifests m = Helm.template("--set", "brokers.config.wal\\.max\\.batch\\.bytes=12");
        Map<String, String> props = podProperties(m, m.get("StatefulSet", "aloft-broker"), "aloft-broker-0", 0);
        ConfigException e = assertThrows(ConfigException.class, () -> ServerConfig.fromProperties(props));
        assertTrue(e.getMessage().contains("wal.max.batch.bytes"), e.getMessage());
    }

    @Test
    void autoscalerPolicy_isAcceptedByTheAutoscaler() throws Exception {
        for (List<String> args : List.of(List.of("--set", "autoscaler.enabled=true"),
                List.of("-f", Helm.EXAMPLES.resolve("aws.yaml").toString()))) {
            Manifests m = Helm.template(args.toArray(String[]::new));
            String yaml = m.get("ConfigMap", "aloft-autoscaler-policy").path("data").path("policy.yaml").asText();
            Policy policy = PolicyLoader.parse(yaml);
            assertTrue(policy.toString().contains("aloft-broker"), policy.toString());
        }
    }

    /** server.properties with the keys the pod's environment adds (ALOFT_NODE_ID, ALOFT_PROP_*). */
    private static Map<String, String> podProperties(Manifests m, ObjectNode sts, String pod, int ordinal) {
        Map<String, String> props = new HashMap<>(m.serverProperties());
        Map<String, String> env = Manifests.env(Manifests.container(sts));
        Map<String, String> vars = Map.of("POD_NAME", pod, "POD_NAMESPACE", "streaming");
        props.put("node.id", Integer.toString(Integer.parseInt(env.get("ALOFT_NODE_ID_OFFSET")) + ordinal));
        for (Map.Entry<String, String> e : env.entrySet()) {
            if (!e.getKey().startsWith("ALOFT_PROP_")) {
                continue;
            }
            String value = e.getValue().startsWith("fieldRef:") ? "us-east-1a"
                    : e.getValue().startsWith("secret:") ? Served.secretValue(e.getKey()) : e.getValue();
            for (Map.Entry<String, String> v : vars.entrySet()) {
                value = value.replace("$(" + v.getKey() + ")", v.getValue());
            }
            props.put(e.getKey().substring("ALOFT_PROP_".length()).replace('_', '.'), value);
        }
        return props;
    }
}

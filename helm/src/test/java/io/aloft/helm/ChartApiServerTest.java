package io.aloft.helm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.FieldValidateable.Validation;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every manifest the chart renders (default values, each example, every optional object
 * switched on with TLS and SASL, and a JKS key store with mutual TLS) sent to a real kube-apiserver 1.37 with etcd ({@code scripts/kube-apiserver.sh})
 * as a server-side dry-run create with strict field validation, in a fresh namespace per
 * rendering: the API server's own validation, defaulting and admission judge them, and an unknown
 * or misspelt field is an error. Kinds from CRDs the test server does not have (ServiceMonitor) are
 * skipped and counted. No kubelet runs: nothing is scheduled, no pod starts.
 */
class ChartApiServerTest {
    private static final Path SCRIPT = Helm.ROOT.resolve("scripts/kube-apiserver.sh");
    /** Kinds defined by CRDs that the bare API server does not serve. */
    private static final Set<String> CRD_KINDS = Set.of("ServiceMonitor");
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    static Path dir;
    private static Path state;
    private static KubernetesClient client;

    @BeforeAll
    static void startApiServer() throws Exception {
        state = dir.resolve("kube");
        Helm.Result r = Helm.exec(List.of("bash", SCRIPT.toString(), "start", "--dir", state.toString()), 600);
        if (r.exit() != 0) {
            throw new AssertionError("kube-apiserver.sh start failed:\n" + r.stderr() + r.stdout());
        }
        String out = r.stdout().strip();
        String kubeconfig = out.substring(out.lastIndexOf('\n') + 1);
        client = new KubernetesClientBuilder().withConfig(Config.fromKubeconfig(Files.readString(Path.of(kubeconfig)))).build();
    }

    @AfterAll
    static void stopApiServer() throws Exception {
        if (client != null) {
            client.close();
        }
        if (state != null) {
            Helm.exec(List.of("bash", SCRIPT.toString(), "stop", "--dir", state.toString()), 120);
        }
    }

    @Test
    void everyRenderedManifest_passesServerSideDryRun() throws Exception {
        Map<String, List<String>> renderings = new LinkedHashMap<>();
        renderings.put("defaults", List.of());
        for (Path example : Helm.examples()) {
            renderings.put(example.getFileName().toString().replace(".yaml", ""), List.of("-f", example.toString()));
        }
        renderings.put("everything", List.of("--set", String.join(",",
                "controller.mode=dedicated", "wal.mode=block", "wal.capacityBytes=4096000000",
                "external.enabled=true", "external.type=LoadBalancer", "external.hostTemplate=b{ordinal}.kafka.example.com",
                "autoscaler.enabled=true", "networkPolicy.enabled=true", "networkPolicy.kafkaFrom[0].namespaceSelector.matchLabels.team=apps",
                "metrics.serviceMonitor.enabled=true", "objectStorage.existingSecret=s3-keys",
                "brokers.nodeSelector.pool=aloft", "brokers.tolerations[0].key=dedicated",
                "brokers.tolerations[0].operator=Exists", "brokers.tolerations[0].effect=NoSchedule",
                "listeners.client.protocol=SASL_SSL", "listeners.internal.protocol=SSL", "tls.existingSecret=aloft-tls",
                "tls.clientAuth=requested", "sasl.plain.existingSecret=aloft-users")));
        renderings.put("keystore-mtls", List.of("--set", String.join(",", "listeners.client.protocol=SSL",
                "tls.existingSecret=aloft-jks", "tls.format=keystore", "tls.keystore.type=JKS", "tls.keystore.keystoreKey=broker.jks",
                "tls.keystore.truststoreKey=trust.jks", "tls.keystore.passwordSecret=aloft-jks-pw",
                "tls.keystore.truststorePasswordKey=trust-password", "tls.clientAuth=required", "controller.mode=dedicated",
                "networkPolicy.enabled=true")));
        List<String> failures = new ArrayList<>();
        int checked = 0;
        int skipped = 0;
        for (Map.Entry<String, List<String>> rendering : renderings.entrySet()) {
            String namespace = "chart-" + rendering.getKey().replaceAll("[^a-z0-9]", "-");
            client.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(namespace).endMetadata().build())
                    .create();
            List<String> args = new ArrayList<>(List.of("template", "aloft", Helm.CHART.toString(), "--namespace", namespace));
            args.addAll(rendering.getValue());
            for (ObjectNode object : Helm.parseDocuments(Helm.run(args.toArray(String[]::new)).ok().stdout())) {
                String what = rendering.getKey() + ": " + object.path("kind").asText() + "/"
                        + object.path("metadata").path("name").asText();
                if (CRD_KINDS.contains(object.path("kind").asText())) {
                    skipped++;
                    continue;
                }
                GenericKubernetesResource resource = JSON.treeToValue(object, GenericKubernetesResource.class);
                try {
                    client.resource(resource).inNamespace(namespace).dryRun().fieldValidation(Validation.STRICT).create();
                    checked++;
                } catch (KubernetesClientException e) {
                    failures.add(what + ": " + e.getCode() + " " + e.getMessage());
                }
            }
        }
        assertTrue(failures.isEmpty(), String.join("\n", failures));
        assertEquals(2, skipped, "the ServiceMonitors of aws and everything are the only CRD kind");
        assertTrue(checked > 40, "checked " + checked);
    }

    @Test
    void theApiServerRefusesABrokenManifest() throws IOException, InterruptedException {
        // The check can fail: a StatefulSet whose claim asks for an invalid volumeMode is refused.
        client.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName("chart-broken").endMetadata().build())
                .create();
        ObjectNode sts = Helm.template().get("StatefulSet", "aloft-broker").deepCopy();
        ((ObjectNode) sts.path("spec").path("volumeClaimTemplates").path(1).path("spec")).put("volumeMode", "Raw");
        GenericKubernetesResource resource = JSON.convertValue(sts, GenericKubernetesResource.class);
        KubernetesClientException e = org.junit.jupiter.api.Assertions.assertThrows(KubernetesClientException.class,
                () -> client.resource(resource).inNamespace("chart-broken").dryRun().fieldValidation(Validation.STRICT).create());
        assertEquals(422, e.getCode());
        assertTrue(e.getMessage().contains("volumeMode"), e.getMessage());

        // Strict field validation: a misspelt field is an error, not silently dropped.
        ObjectNode typo = Helm.template().get("StatefulSet", "aloft-broker").deepCopy();
        ((ObjectNode) typo.path("spec")).put("podManagmentPolicy", "Parallel");
        GenericKubernetesResource misspelt = JSON.convertValue(typo, GenericKubernetesResource.class);
        e = org.junit.jupiter.api.Assertions.assertThrows(KubernetesClientException.class,
                () -> client.resource(misspelt).inNamespace("chart-broken").dryRun().fieldValidation(Validation.STRICT).create());
        assertTrue(e.getMessage().contains("podManagmentPolicy"), e.getMessage());
    }
}

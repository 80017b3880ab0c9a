package io.aloft.autoscaler.backend;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.ServiceAccountBuilder;
import io.fabric8.kubernetes.api.model.authentication.TokenRequest;
import io.fabric8.kubernetes.api.model.authentication.TokenRequestBuilder;
import io.fabric8.kubernetes.api.model.rbac.PolicyRuleBuilder;
import io.fabric8.kubernetes.api.model.rbac.RoleBindingBuilder;
import io.fabric8.kubernetes.api.model.rbac.RoleBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link KubernetesBackend} against a real kube-apiserver (with etcd; {@code scripts/kube-apiserver.sh},
 * built once from the Go module proxy), signed in as a service account that holds only the rights
 * the README names: {@code get} on {@code statefulsets}, {@code get} and {@code update} on
 * {@code statefulsets/scale}. Scale out and in change the StatefulSet's replicas as the API server
 * stores them; a voter and a lower ordinal are refused without a write; anything beyond those
 * rights is forbidden (403), so the backend needs no more. No controller-manager runs: the
 * StatefulSet gets no pods, which the backend does not need (it counts replicas).
 */
class KubernetesApiServerTest {
    private static final Path SCRIPT = Path.of("..", "scripts", "kube-apiserver.sh").toAbsolutePath().normalize();
    private static final String NAMESPACE = "streaming";
    private static final String BROKERS = "aloft-broker";

    @TempDir
    static Path dir;
    private static Path state;
    private static KubernetesClient admin;
    private static KubernetesClient autoscaler;

    @BeforeAll
    static void startApiServer() throws Exception {
        state = dir.resolve("kube");
        Config adminConfig = Config.fromKubeconfig(Files.readString(Path.of(script("start", "--dir", state.toString()))));
        admin = new KubernetesClientBuilder().withConfig(adminConfig).build();
        admin.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(NAMESPACE).endMetadata().build())
                .create();
        admin.apps().statefulSets().inNamespace(NAMESPACE)
                .resource(KubernetesBackendTest.statefulSet(BROKERS, 3)).create();
        admin.serviceAccounts().inNamespace(NAMESPACE).resource(new ServiceAccountBuilder().withNewMetadata()
                .withName("aloft-autoscaler").endMetadata().build()).create();
        admin.rbac().roles().inNamespace(NAMESPACE).resource(new RoleBuilder().withNewMetadata()
                .withName("aloft-autoscaler").endMetadata()
                .addToRules(new PolicyRuleBuilder().withApiGroups("apps").withResources("statefulsets")
                        .withVerbs("get").build())
                .addToRules(new PolicyRuleBuilder().withApiGroups("apps").withResources("statefulsets/scale")
                        .withVerbs("get", "update").build())
                .build()).create();
        admin.rbac().roleBindings().inNamespace(NAMESPACE).resource(new RoleBindingBuilder().withNewMetadata()
                .withName("aloft-autoscaler").endMetadata()
                .withNewRoleRef().withApiGroup("rbac.authorization.k8s.io").withKind("Role")
                .withName("aloft-autoscaler").endRoleRef()
                .addNewSubject().withKind("ServiceAccount").withName("aloft-autoscaler").withNamespace(NAMESPACE)
                .endSubject().build()).create();
        TokenRequest token = admin.serviceAccounts().inNamespace(NAMESPACE).withName("aloft-autoscaler")
                .tokenRequest(new TokenRequestBuilder().withNewSpec().withExpirationSeconds(3600L).endSpec().build());
        autoscaler = new KubernetesClientBuilder().withConfig(new ConfigBuilder(adminConfig)
                .withOauthToken(token.getStatus().getToken()).build()).build();
    }

    @AfterAll
    static void stopApiServer() throws Exception {
        for (KubernetesClient c : new KubernetesClient[] {autoscaler, admin}) {
            if (c != null) {
                c.close();
            }
        }
        if (state != null) {
            script("stop", "--dir", state.toString());
        }
    }

    @Test
    void scaleOutAndIn_withTheLeastRights() throws Exception {
        KubernetesBackend backend = new KubernetesBackend(autoscaler,
                KubernetesBackend.Config.of(NAMESPACE, BROKERS));
        assertEquals(List.of(0, 1, 2), backend.brokers());
        assertEquals(Set.of(0, 1, 2), backend.protectedBrokers());
        assertEquals(-1, backend.removalCandidate(), "the three voters stay");

        assertEquals(3, backend.addBroker());
        assertEquals(4, replicas(), "stored by the API server");
        assertEquals(4, backend.addBroker());
        assertEquals(List.of(0, 1, 2, 3, 4), backend.brokers());

        assertThrows(IllegalStateException.class, () -> backend.removeBroker(3), "only the highest ordinal goes");
        assertThrows(IllegalStateException.class, () -> backend.removeBroker(1), "a voter never goes");
        assertEquals(5, replicas(), "refusals write nothing");
        assertEquals(4, backend.removalCandidate());
        backend.removeBroker(4);
        assertEquals(4, replicas());
        assertEquals(3, backend.removalCandidate());
    }

    @Test
    void theServiceAccount_canDoNothingElse() {
        KubernetesClientException e = assertThrows(KubernetesClientException.class,
                () -> autoscaler.apps().statefulSets().inNamespace(NAMESPACE).withName(BROKERS).delete());
        assertEquals(403, e.getCode());
        e = assertThrows(KubernetesClientException.class, () -> autoscaler.pods().inNamespace(NAMESPACE).list());
        assertEquals(403, e.getCode());
        e = assertThrows(KubernetesClientException.class,
                () -> autoscaler.apps().statefulSets().inNamespace("default").withName(BROKERS).get());
        assertEquals(403, e.getCode(), "its namespace only");
    }

    private static int replicas() {
        return admin.apps().statefulSets().inNamespace(NAMESPACE).withName(BROKERS).get().getSpec().getReplicas();
    }

    /** Runs scripts/kube-apiserver.sh; returns its last stdout line. */
    private static String script(String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of("bash", SCRIPT.toString()));
        command.addAll(List.of(args));
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        p.getOutputStream().close();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(300, TimeUnit.SECONDS) || p.exitValue() != 0) {
            p.destroyForcibly();
            throw new IOException("kube-apiserver.sh " + String.join(" ", args) + " failed: " + out);
        }
        String[] lines = out.strip().split("\n");
        return lines[lines.length - 1];
    }
}

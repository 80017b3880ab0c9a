package io.aloft.autoscaler.backend;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.apps.StatefulSetBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@link KubernetesBackend} against fabric8's mock Kubernetes API server in CRUD mode (it stores
 * what is written and serves it back, per namespace), with the broker StatefulSet created first:
 * scale out, scale in of the highest ordinal, refusals (a lower ordinal, a voter) that change
 * nothing, a concurrent scale that wins (409 Conflict on the stale resourceVersion, which the mock
 * enforces as the API server does), and isolation between namespaces.
 *
 * <p>The mock is here for what a real API server makes hard to stage: a write racing another
 * (injected between the backend's read and write). The same backend against a real kube-apiserver,
 * with only the RBAC rights the README names: {@link KubernetesApiServerTest}.
 */
@EnableKubernetesMockClient(crud = true)
class KubernetesBackendTest {
    private static final String NAMESPACE = "aloft";
    private static final String BROKERS = "aloft-broker";

    KubernetesMockServer server;
    KubernetesClient client;

    @BeforeEach
    void createStatefulSet() {
        client.apps().statefulSets().inNamespace(NAMESPACE).resource(statefulSet(BROKERS, 3)).create();
    }

    /** A broker StatefulSet: {@code replicas} pods, selector and template. */
    static StatefulSet statefulSet(String name, int replicas) {
        return new StatefulSetBuilder()
                .withNewMetadata().withName(name).endMetadata()
                .withNewSpec()
                .withReplicas(replicas)
                .withServiceName(name)
                .withNewSelector().withMatchLabels(Map.of("app", name)).endSelector()
                .withNewTemplate()
                .withNewMetadata().withLabels(Map.of("app", name)).endMetadata()
                .withNewSpec().addNewContainer().withName("broker").withImage("aloft:test").endContainer().endSpec()
                .endTemplate()
                .endSpec()
                .build();
    }

    private int replicas(String namespace, String name) {
        return client.apps().statefulSets().inNamespace(namespace).withName(name).get().getSpec().getReplicas();
    }

    /** Node id = ordinal + 1 (Aloft node ids start at 1), the first 3 ordinals are voters. */
    private KubernetesBackend backend() {
        return new KubernetesBackend(client, new KubernetesBackend.Config(NAMESPACE, BROKERS, 1, 3));
    }

    @Test
    void brokers_threeVoters_allProtectedNoCandidate() throws Exception {
        try (KubernetesBackend backend = backend()) {
            assertEquals("kubernetes", backend.name());
            assertEquals(List.of(1, 2, 3), backend.brokers());
            assertEquals(Set.of(1, 2, 3), backend.protectedBrokers());
            assertEquals(-1, backend.removalCandidate(), "every pod embeds a voter");
        }
    }

    @Test
    void addBroker_thenRemoveBroker_changesReplicasAndKeepsTheRestOfTheStatefulSet() throws Exception {
        try (KubernetesBackend backend = backend()) {
            assertEquals(4, backend.addBroker(), "ordinal 3 runs node 4");
            assertEquals(4, replicas(NAMESPACE, BROKERS));
            assertEquals(5, backend.addBroker());
            assertEquals(5, replicas(NAMESPACE, BROKERS));
            assertEquals(List.of(1, 2, 3, 4, 5), backend.brokers());
            assertEquals(5, backend.removalCandidate());

            backend.removeBroker(5);
            assertEquals(4, replicas(NAMESPACE, BROKERS));
            assertEquals(List.of(1, 2, 3, 4), backend.brokers());
            assertEquals(4, backend.removalCandidate());
            backend.removeBroker(4);
            assertEquals(3, replicas(NAMESPACE, BROKERS));
            assertEquals(-1, backend.removalCandidate());

            // Scaling went through the scale subresource: the StatefulSet is still whole.
            StatefulSet set = client.apps().statefulSets().inNamespace(NAMESPACE).withName(BROKERS).get();
            assertEquals("StatefulSet", set.getKind());
            assertNotNull(set.getSpec().getTemplate(), "template kept");
            assertEquals("aloft:test", set.getSpec().getTemplate().getSpec().getContainers().get(0).getImage());
            assertEquals(Map.of("app", BROKERS), set.getSpec().getSelector().getMatchLabels());
        }
    }

    @Test
    void removeBroker_notTheHighestOrdinal_refusedAndNothingChanges() throws Exception {
        try (KubernetesBackend backend = backend()) {
            backend.addBroker();
            backend.addBroker(); // brokers 1..5
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> backend.removeBroker(4));
            assertTrue(e.getMessage().contains("highest ordinal"), e.getMessage());
            assertTrue(e.getMessage().contains("broker 5"), "names the one that can go: " + e.getMessage());
            assertEquals(5, replicas(NAMESPACE, BROKERS));
            assertThrows(IllegalStateException.class, () -> backend.removeBroker(6), "no such broker");
            assertEquals(5, replicas(NAMESPACE, BROKERS));
        }
    }

    @Test
    void removeBroker_aVoter_refusedAndNothingChanges() throws Exception {
        try (KubernetesBackend backend = backend()) {
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> backend.removeBroker(3));
            assertTrue(e.getMessage().contains("voter"), e.getMessage());
            assertEquals(3, replicas(NAMESPACE, BROKERS));
        }
    }

    @Test
    void addBroker_someoneElseScaledMeanwhile_conflictAndTheirChangeStands() throws Exception {
        Runnable concurrentScale = () -> client.apps().statefulSets().inNamespace(NAMESPACE).withName(BROKERS)
                .edit(s -> new StatefulSetBuilder(s).editSpec().withReplicas(s.getSpec().getReplicas() + 4).endSpec()
                        .build());
        try (KubernetesBackend backend = new KubernetesBackend(client,
                new KubernetesBackend.Config(NAMESPACE, BROKERS, 1, 3), concurrentScale)) {
            IOException e = assertThrows(IOException.class, backend::addBroker);
            assertTrue(e.getMessage().contains("someone else scaled it"), e.getMessage());
            assertEquals(7, replicas(NAMESPACE, BROKERS), "the other writer's 3 + 4, not this backend's 3 + 1");
            IOException remove = assertThrows(IOException.class, () -> backend.removeBroker(7));
            assertTrue(remove.getMessage().contains("someone else scaled it"), remove.getMessage());
            assertEquals(11, replicas(NAMESPACE, BROKERS), "the other writer's 7 + 4, not this backend's 7 - 1");
        }
    }

    @Test
    void namespaces_sameStatefulSetName_eachBackendScalesOnlyItsOwn() throws Exception {
        client.apps().statefulSets().inNamespace("other").resource(statefulSet(BROKERS, 7)).create();
        try (KubernetesBackend backend = backend();
                KubernetesBackend other = new KubernetesBackend(client,
                        new KubernetesBackend.Config("other", BROKERS, 0, 3))) {
            assertEquals(4, backend.addBroker());
            assertEquals(7, replicas("other", BROKERS), "the other namespace's StatefulSet is untouched");
            assertEquals(List.of(0, 1, 2, 3, 4, 5, 6), other.brokers(), "node id = ordinal there (offset 0)");
            assertEquals(6, other.removalCandidate());
            other.removeBroker(6);
            assertEquals(6, replicas("other", BROKERS));
            assertEquals(4, replicas(NAMESPACE, BROKERS));
        }
    }

    @Test
    void brokers_noSuchStatefulSet_failsNamingIt() throws Exception {
        try (KubernetesBackend missing = new KubernetesBackend(client,
                KubernetesBackend.Config.of("elsewhere", BROKERS))) {
            IOException e = assertThrows(IOException.class, missing::brokers);
            assertTrue(e.getMessage().contains("not found in namespace elsewhere"), e.getMessage());
            IOException add = assertThrows(IOException.class, missing::addBroker);
            assertTrue(add.getMessage().contains(BROKERS), add.getMessage());
        }
    }

    @Test
    void config_invalid_rejectedNamingTheField() {
        assertTrue(assertThrows(IllegalArgumentException.class,
                () -> new KubernetesBackend.Config(" ", BROKERS, 0, 3)).getMessage().contains("namespace"));
        assertTrue(assertThrows(IllegalArgumentException.class,
                () -> new KubernetesBackend.Config(NAMESPACE, "", 0, 3)).getMessage().contains("statefulSet"));
        assertTrue(assertThrows(IllegalArgumentException.class,
                () -> new KubernetesBackend.Config(NAMESPACE, BROKERS, -1, 3)).getMessage().contains("nodeIdOffset"));
        assertTrue(assertThrows(IllegalArgumentException.class,
                () -> new KubernetesBackend.Config(NAMESPACE, BROKERS, 0, -1)).getMessage().contains("voters"));
    }
}

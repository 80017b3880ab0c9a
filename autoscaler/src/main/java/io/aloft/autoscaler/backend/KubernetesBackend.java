package io.aloft.autoscaler.backend;

import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.autoscaling.v1.Scale;
import io.fabric8.kubernetes.api.model.autoscaling.v1.ScaleBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.RollableScalableResource;
import java.io.IOException;
import java.net.HttpURLConnection;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@code kubernetes} backend: the brokers are the pods of one StatefulSet, and scaling changes
 * its {@code spec.replicas} through the Kubernetes API (the fabric8 client). Pod ordinal {@code i} runs
 * node id {@code i + nodeIdOffset} (the pod sets {@code node.id} from the ordinal in its hostname); the
 * first {@code voters} ordinals embed the controller voters and are never removed.
 *
 * <p>A StatefulSet always removes its highest ordinal, so only that broker can go: the autoscaler
 * drains it (moves its partitions away) first, and {@link #removeBroker} refuses any other id. Kubernetes
 * then sends the pod SIGTERM, the broker's own graceful drain, upload and exit.
 *
 * <p>Every change goes through the StatefulSet's {@code scale} subresource as a read of the current
 * {@code Scale} and a write of the new replica count carrying the read's {@code resourceVersion}: if
 * anyone else scaled the StatefulSet in between, the API server answers 409 Conflict and nothing
 * changes (an {@link IOException} here; the control loop looks again on its next round). Calls return
 * once the API server has accepted the change; the new pod's start (and its broker's registration)
 * is the caller's to wait for.
 *
 * <p>RBAC: the service account needs, in {@code namespace} only, {@code get} on
 * {@code statefulsets} (the replica count) and {@code get} and {@code update} on
 * {@code statefulsets/scale} (the Scale is read, then written back with PUT). Nothing cluster-wide:
 * a namespaced Role and its RoleBinding suffice.
 * <pre>
 * apiVersion: rbac.authorization.k8s.io/v1
 * kind: Role
 * metadata: {name: aloft-autoscaler, namespace: NAMESPACE}
 * rules:
 * - apiGroups: ["apps"]
 *   resources: ["statefulsets"]
 *   resourceNames: ["STATEFULSET"]
 *   verbs: ["get"]
 * - apiGroups: ["apps"]
 *   resources: ["statefulsets/scale"]
 *   resourceNames: ["STATEFULSET"]
 *   verbs: ["get", "update"]
 * </pre>
 *
 * <p>Confined to the autoscaler's control thread (see {@link ScalingBackend}); the fabric8 client
 * it holds is thread-safe, this class adds no state of its own beyond its configuration.
 */
public final class KubernetesBackend implements ScalingBackend {
    private static final Logger log = LoggerFactory.getLogger(KubernetesBackend.class);

    /**
     * Which StatefulSet, and how its ordinals map to node ids.
     *
     * @param namespace the StatefulSet's namespace
     * @param statefulSet the broker StatefulSet's name
     * @param nodeIdOffset node id of ordinal 0 (node id = ordinal + offset), at least 0
     * @param voters how many of the first ordinals embed controller voters (protected), at least 0;
     *     {@link #DEFAULT_VOTERS} by default
     */
    public record Config(String namespace, String statefulSet, int nodeIdOffset, int voters) {
        /** The default quorum: 3 voters, embedded in ordinals 0, 1 and 2. */
        public static final int DEFAULT_VOTERS = 3;

        public Config {
            if (namespace == null || namespace.isBlank()) {
                throw new IllegalArgumentException("namespace must be set");
            }
            if (statefulSet == null || statefulSet.isBlank()) {
                throw new IllegalArgumentException("statefulSet must be set");
            }
            if (nodeIdOffset < 0) {
                throw new IllegalArgumentException("nodeIdOffset must be at least 0, was " + nodeIdOffset);
            }
            if (voters < 0) {
                throw new IllegalArgumentException("voters must be at least 0, was " + voters);
            }
        }

        /** StatefulSet {@code statefulSet} in {@code namespace}, node id = ordinal, 3 voters. */
        public static Config of(String namespace, String statefulSet) {
            return new Config(namespace, statefulSet, 0, DEFAULT_VOTERS);
        }
    }

    private final KubernetesClient client;
    private final boolean ownsClient;
    private final Config config;
    /** Runs between the read of the Scale and its write: tests put a concurrent change there. */
    private final Runnable beforeScaleWrite;

    /**
     * A backend on {@code client}, which the caller keeps owning (and closes).
     */
    public KubernetesBackend(KubernetesClient client, Config config) {
        this(client, config, false, () -> { });
    }

    /** For tests: {@code beforeScaleWrite} runs between each read of the Scale and its write. */
    KubernetesBackend(KubernetesClient client, Config config, Runnable beforeScaleWrite) {
        this(client, config, false, beforeScaleWrite);
    }

    private KubernetesBackend(KubernetesClient client, Config config, boolean ownsClient, Runnable beforeScaleWrite) {
        this.client = Objects.requireNonNull(client, "client");
        this.config = Objects.requireNonNull(config, "config");
        this.ownsClient = ownsClient;
        this.beforeScaleWrite = Objects.requireNonNull(beforeScaleWrite, "beforeScaleWrite");
    }

    /**
     * A backend with a client configured the usual fabric8 way (in a pod: its service account's
     * token and the API server from the environment; elsewhere: {@code ~/.kube/config}), closed with
     * the backend.
     */
    public static KubernetesBackend connect(Config config) {
        return connect(config, new KubernetesClientBuilder().build());
    }

    /** A backend on {@code client} (e.g. built from a kubeconfig file), closed with the backend. */
    public static KubernetesBackend connect(Config config, KubernetesClient client) {
        return new KubernetesBackend(client, config, true, () -> { });
    }

    @Override
    public String name() {
        return "kubernetes";
    }

    @Override
    public List<Integer> brokers() throws IOException {
        int replicas = replicas();
        List<Integer> ids = new ArrayList<>(replicas);
        for (int ordinal = 0; ordinal < replicas; ordinal++) {
            ids.add(ordinal + config.nodeIdOffset());
        }
        return ids;
    }

    /** The voters' node ids: the first {@code voters} ordinals, whether they run now or not. */
    @Override
    public Set<Integer> protectedBrokers() {
        Set<Integer> ids = new TreeSet<>();
        for (int ordinal = 0; ordinal < config.voters(); ordinal++) {
            ids.add(ordinal + config.nodeIdOffset());
        }
        return Collections.unmodifiableSet(ids);
    }

    @Override
    public int removalCandidate() throws IOException {
        int highest = replicas() - 1;
        return highest < config.voters() ? -1 : highest + config.nodeIdOffset();
    }

    /** Sets replicas to one more; returns the new pod's node id once the API server accepted the change. */
    @Override
    public int addBroker() throws IOException {
        Scale current = readScale();
        int replicas = replicasOf(current);
        writeScale(current, replicas + 1);
        int id = replicas + config.nodeIdOffset();
        log.info("Kubernetes backend: StatefulSet {}/{} scaled {} -> {} replicas; broker {} is the new pod",
                config.namespace(), config.statefulSet(), replicas, replicas + 1, id);
        return id;
    }

    /**
     * Sets replicas to one fewer, which removes the highest ordinal; {@code id} must be that pod's
     * node id and not a voter's.
     *
     * @throws IllegalStateException when {@code id} is not the highest ordinal's node id (a
     *     StatefulSet cannot remove another pod) or is a voter's
     */
    @Override
    public void removeBroker(int id) throws IOException {
        Scale current = readScale();
        int replicas = replicasOf(current);
        int ordinal = id - config.nodeIdOffset();
        if (replicas == 0 || ordinal != replicas - 1) {
            throw new IllegalStateException("cannot remove broker " + id + " from StatefulSet " + config.namespace()
                    + "/" + config.statefulSet() + ": a StatefulSet removes its highest ordinal, which is "
                    + (replicas == 0 ? "none (0 replicas)"
                            : "ordinal " + (replicas - 1) + " (broker " + (replicas - 1 + config.nodeIdOffset()) + ")"));
        }
        if (ordinal < config.voters()) {
            throw new IllegalStateException("cannot remove broker " + id + ": ordinal " + ordinal + " embeds one of the "
                    + config.voters() + " controller voters; removing it would shrink the quorum");
        }
        writeScale(current, replicas - 1);
        log.info("Kubernetes backend: StatefulSet {}/{} scaled {} -> {} replicas; broker {} (ordinal {}) goes",
                config.namespace(), config.statefulSet(), replicas, replicas - 1, id, ordinal);
    }

    @Override
    public void close() {
        if (ownsClient) {
            client.close();
        }
    }

    private RollableScalableResource<StatefulSet> statefulSet() {
        return client.apps().statefulSets().inNamespace(config.namespace()).withName(config.statefulSet());
    }

    /** {@code spec.replicas} of the StatefulSet (Kubernetes' default, 1, when unset). */
    private int replicas() throws IOException {
        StatefulSet set;
        try {
            set = statefulSet().get();
        } catch (KubernetesClientException e) {
            throw failure("read", e);
        }
        if (set == null) {
            throw notFound();
        }
        Integer replicas = set.getSpec() == null ? null : set.getSpec().getReplicas();
        return replicas == null ? 1 : replicas;
    }

    private Scale readScale() throws IOException {
        Scale scale;
        try {
            scale = statefulSet().scale();
        } catch (KubernetesClientException e) {
            if (e.getCode() == HttpURLConnection.HTTP_NOT_FOUND) {
                throw notFound();
            }
            throw failure("read the scale of", e);
        }
        if (scale == null) {
            throw notFound();
        }
        return scale;
    }

    private static int replicasOf(Scale scale) {
        Integer replicas = scale.getSpec() == null ? null : scale.getSpec().getReplicas();
        return replicas == null ? 0 : replicas;
    }

    /** Writes {@code replicas}, conditional on {@code read}'s resourceVersion (409 if it changed since). */
    private void writeScale(Scale read, int replicas) throws IOException {
        Scale next = new ScaleBuilder(read).editOrNewSpec().withReplicas(replicas).endSpec().build();
        beforeScaleWrite.run();
        try {
            statefulSet().scale(next);
        } catch (KubernetesClientException e) {
            if (e.getCode() == HttpURLConnection.HTTP_CONFLICT) {
                throw new IOException("StatefulSet " + config.namespace() + "/" + config.statefulSet() + " changed "
                        + "while it was being scaled to " + replicas + " replicas (someone else scaled it); nothing "
                        + "was changed: " + e.getMessage(), e);
            }
            throw failure("scale", e);
        }
    }

    private IOException notFound() {
        return new IOException("StatefulSet " + config.statefulSet() + " not found in namespace " + config.namespace());
    }

    private IOException failure(String what, KubernetesClientException e) {
        return new IOException("could not " + what + " StatefulSet " + config.namespace() + "/" + config.statefulSet()
                + " (HTTP " + e.getCode() + "): " + e.getMessage(), e);
    }
}

package io.aloft.autoscaler.policy;

import java.nio.file.Path;
import java.util.Objects;
import java.util.Optional;

/**
 * The {@code backend} section: what adds and removes brokers. {@code type: local} runs processes
 * in {@code scripts/cluster.sh}'s layout; {@code type: kubernetes} scales a StatefulSet.
 *
 * <p>Immutable.
 */
public sealed interface BackendPolicy {

    /** The {@code type} key's value. */
    String type();

    /**
     * {@code type: local}.
     *
     * @param clusterDir the cluster's directory as {@code scripts/cluster.sh} lays it out (required)
     * @param script the script that starts and stops brokers (default {@code scripts/cluster.sh})
     */
    record Local(Path clusterDir, Path script) implements BackendPolicy {

        /** Default of {@code script}. */
        public static final Path DEFAULT_SCRIPT = Path.of("scripts/cluster.sh");

        public Local {
            Objects.requireNonNull(clusterDir, "clusterDir");
            Objects.requireNonNull(script, "script");
        }

        @Override
        public String type() {
            return "local";
        }
    }

    /**
     * {@code type: kubernetes}.
     *
     * @param namespace the StatefulSet's namespace (default "default")
     * @param statefulSet the brokers' StatefulSet (required)
     * @param nodeIdOffset node id of ordinal 0; ordinal {@code n} is node {@code nodeIdOffset + n} (default 0)
     * @param kubeconfig a kubeconfig file; absent means in-cluster service account or {@code ~/.kube/config}
     */
    record Kubernetes(String namespace, String statefulSet, int nodeIdOffset, Optional<Path> kubeconfig)
            implements BackendPolicy {

        /** Default of {@code namespace}. */
        public static final String DEFAULT_NAMESPACE = "default";

        public Kubernetes {
            Objects.requireNonNull(namespace, "namespace");
            Objects.requireNonNull(statefulSet, "statefulSet");
            Objects.requireNonNull(kubeconfig, "kubeconfig");
        }

        @Override
        public String type() {
            return "kubernetes";
        }
    }
}

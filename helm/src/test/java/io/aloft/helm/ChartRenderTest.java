package io.aloft.helm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * What {@code helm template} renders, value by value: the voters list and node ids, probes and
 * shutdown timing, volumes per WAL mode, object storage credentials, external Services, and the
 * autoscaler's RBAC (exactly the verbs its Kubernetes backend uses).
 */
class ChartRenderTest {
    private static final String HEADLESS = ".aloft-headless.streaming.svc.cluster.local:9093";

    @Test
    void combinedVoters_areTheFirstThreeBrokers() throws Exception {
        Manifests m = Helm.template();
        Map<String, String> props = m.serverProperties();
        assertEquals("0@aloft-broker-0" + HEADLESS + ",1@aloft-broker-1" + HEADLESS + ",2@aloft-broker-2" + HEADLESS,
                props.get("controller.quorum.voters"));
        assertEquals("PLAINTEXT://:9092", props.get("listeners"));
        assertEquals("http://0.0.0.0:9464", props.get("metrics.listener"));
        ObjectNode sts = m.get("StatefulSet", "aloft-broker");
        assertEquals("Parallel", sts.path("spec").path("podManagementPolicy").asText());
        assertEquals(3, sts.path("spec").path("replicas").asInt());
        assertEquals("aloft-headless", sts.path("spec").path("serviceName").asText());
        Map<String, String> env = Manifests.env(Manifests.container(sts));
        assertEquals("0", env.get("ALOFT_NODE_ID_OFFSET"));
        assertEquals("PLAINTEXT://$(POD_NAME).aloft-headless.$(POD_NAMESPACE).svc.cluster.local:9092",
                env.get("ALOFT_PROP_advertised_listeners"));
        assertEquals("fieldRef:metadata.labels['topology.kubernetes.io/zone']", env.get("ALOFT_PROP_broker_rack"));
        assertFalse(env.containsKey("ALOFT_PROP_process_roles"), "combined: roles follow the voters list");
        assertTrue(m.find("StatefulSet", "aloft-controller").isEmpty());
        assertEquals("1@aloft-broker-0" + HEADLESS, // node.id = offset + ordinal
                Helm.template("--set", "controller.voters=1,brokers.nodeIdOffset=1")
                        .serverProperties().get("controller.quorum.voters"));
    }

    @Test
    void dedicatedVoters_haveTheirOwnStatefulSetAndIds() throws Exception {
        Manifests m = Helm.template("--set", "controller.mode=dedicated,controller.voters=5,brokers.replicas=2");
        String voters = m.serverProperties().get("controller.quorum.voters");
        List<String> expected = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            expected.add((1000 + i) + "@aloft-controller-" + i + HEADLESS);
        }
        assertEquals(String.join(",", expected), voters);
        ObjectNode controllers = m.get("StatefulSet", "aloft-controller");
        assertEquals(5, controllers.path("spec").path("replicas").asInt());
        Map<String, String> cenv = Manifests.env(Manifests.container(controllers));
        assertEquals("controller", cenv.get("ALOFT_PROP_process_roles"));
        assertEquals("1000", cenv.get("ALOFT_NODE_ID_OFFSET"));
        assertEquals(List.of("data"), claimNames(controllers), "a metadata volume, no WAL");
        assertEquals("broker", Manifests.env(Manifests.container(m.get("StatefulSet", "aloft-broker")))
                .get("ALOFT_PROP_process_roles"));
        m.get("PodDisruptionBudget", "aloft-controller");
    }

    @Test
    void probesAndShutdown_fitTheDrain() throws Exception {
        JsonNode c = Manifests.container(Helm.template().get("StatefulSet", "aloft-broker"));
        assertEquals("/readyz", c.path("readinessProbe").path("httpGet").path("path").asText());
        assertEquals("metrics", c.path("readinessProbe").path("httpGet").path("port").asText());
        assertEquals("/healthz", c.path("livenessProbe").path("httpGet").path("path").asText());
        assertEquals(5, c.path("lifecycle").path("preStop").path("sleep").path("seconds").asInt());
        assertEquals(List.of("/bin/sh", "/etc/aloft/start.sh"),
                List.of(c.path("command").path(0).asText(), c.path("command").path(1).asText()));
        ObjectNode sts = Helm.template("--set", "brokers.terminationGracePeriodSeconds=90")
                .get("StatefulSet", "aloft-broker");
        assertEquals(90, sts.path("spec").path("template").path("spec").path("terminationGracePeriodSeconds").asInt());
        JsonNode spread = sts.path("spec").path("template").path("spec").path("topologySpreadConstraints");
        assertEquals("topology.kubernetes.io/zone", spread.path(0).path("topologyKey").asText());
    }

    @Test
    void walModes_volumesAndKeys() throws Exception {
        // filesystem (default): a filesystem PVC mounted, the WAL a file on it.
        Manifests m = Helm.template();
        ObjectNode sts = m.get("StatefulSet", "aloft-broker");
        assertEquals(List.of("data", "wal"), claimNames(sts));
        assertEquals("Filesystem", claim(sts, "wal").path("spec").path("volumeMode").asText());
        assertEquals("/var/lib/aloft/wal/wal", m.serverProperties().get("wal.path"));
        assertTrue(mountPaths(sts).contains("/var/lib/aloft/wal"));

        // block: volumeMode Block, a device, no mount.
        m = Helm.template("--set", "wal.mode=block,wal.capacityBytes=4096000000");
        sts = m.get("StatefulSet", "aloft-broker");
        assertEquals("Block", claim(sts, "wal").path("spec").path("volumeMode").asText());
        JsonNode devices = Manifests.container(sts).path("volumeDevices");
        assertEquals("wal", devices.path(0).path("name").asText());
        assertEquals("/dev/aloft-wal", devices.path(0).path("devicePath").asText());
        assertFalse(mountPaths(sts).contains("/var/lib/aloft/wal"));
        assertEquals("/dev/aloft-wal", m.serverProperties().get("wal.path"));
        assertEquals("4096000000", m.serverProperties().get("wal.capacity.bytes"), "a long, not 4.096e+09");

        // objectStorage: no WAL volume, wal.url in the WAL bucket.
        m = Helm.template("--set", "wal.mode=objectStorage,wal.bucket=wal-bucket,objectStorage.endpoint=http://minio:9000,"
                + "objectStorage.pathStyle=true");
        sts = m.get("StatefulSet", "aloft-broker");
        assertEquals(List.of("data"), claimNames(sts));
        assertTrue(Manifests.container(sts).path("volumeDevices").isMissingNode());
        Map<String, String> props = m.serverProperties();
        assertEquals("s3://wal-bucket?region=us-east-1&endpoint=http://minio:9000&pathStyle=true", props.get("wal.url"));
        assertEquals("s3://aloft?region=us-east-1&endpoint=http://minio:9000&pathStyle=true", props.get("s3.url"));
        assertFalse(props.containsKey("wal.path"));
        assertFalse(props.containsKey("wal.capacity.bytes"));
    }

    @Test
    void objectStorageCredentials_fromASecretOrWorkloadIdentity() throws Exception {
        Map<String, String> env = Manifests.env(Manifests.container(
                Helm.template("--set", "objectStorage.existingSecret=s3-keys").get("StatefulSet", "aloft-broker")));
        assertEquals("secret:s3-keys/AWS_ACCESS_KEY_ID", env.get("AWS_ACCESS_KEY_ID"));
        assertEquals("secret:s3-keys/AWS_SECRET_ACCESS_KEY", env.get("AWS_SECRET_ACCESS_KEY"));
        Manifests aws = Helm.template("-f", Helm.EXAMPLES.resolve("aws.yaml").toString());
        assertEquals("arn:aws:iam::111122223333:role/aloft-s3", aws.get("ServiceAccount", "aloft").path("metadata")
                .path("annotations").path("eks.amazonaws.com/role-arn").asText());
        env = Manifests.env(Manifests.container(aws.get("StatefulSet", "aloft-broker")));
        assertFalse(env.containsKey("AWS_ACCESS_KEY_ID"), "IRSA: no keys");
        assertEquals("aloft", aws.get("StatefulSet", "aloft-broker").path("spec").path("template").path("spec")
                .path("serviceAccountName").asText());
        assertEquals("s3://my-aloft-data?region=us-east-1", aws.serverProperties().get("s3.url"));
        assertEquals("Block", claim(aws.get("StatefulSet", "aloft-broker"), "wal").path("spec").path("volumeMode").asText());
    }

    @Test
    void externalServices_onePerBroker() throws Exception {
        Manifests m = Helm.template("--set", "external.enabled=true,brokers.replicas=4");
        for (int i = 0; i < 4; i++) {
            ObjectNode svc = m.get("Service", "aloft-broker-" + i + "-external");
            assertEquals("NodePort", svc.path("spec").path("type").asText());
            assertEquals(31090 + i, svc.path("spec").path("ports").path(0).path("nodePort").asInt());
            assertEquals("aloft-broker-" + i, svc.path("spec").path("selector").path("statefulset.kubernetes.io/pod-name").asText());
        }
        assertTrue(m.find("Service", "aloft-broker-4-external").isEmpty());
        assertTrue(Helm.template().find("Service", "aloft-broker-0-external").isEmpty());
    }

    @Test
    void autoscaler_hasExactlyTheRightsItsBackendUses() throws Exception {
        assertTrue(Helm.template().find("Deployment", "aloft-autoscaler").isEmpty(), "off by default");
        Manifests m = Helm.template("--set", "autoscaler.enabled=true");
        JsonNode rules = m.get("Role", "aloft-autoscaler").path("rules");
        Set<String> grants = new TreeSet<>();
        for (JsonNode rule : rules) {
            for (JsonNode group : rule.path("apiGroups")) {
                for (JsonNode resource : rule.path("resources")) {
                    for (JsonNode verb : rule.path("verbs")) {
                        for (JsonNode name : rule.path("resourceNames")) {
                            grants.add(group.asText() + "/" + resource.asText() + "/" + name.asText() + ":" + verb.asText());
                        }
                    }
                }
            }
        }
        assertEquals(new TreeSet<>(List.of("apps/statefulsets/aloft-broker:get",
                "apps/statefulsets/scale/aloft-broker:get", "apps/statefulsets/scale/aloft-broker:update")), grants);
        assertTrue(m.ofKind("ClusterRole").isEmpty());
        ObjectNode binding = m.get("RoleBinding", "aloft-autoscaler");
        assertEquals("aloft-autoscaler", binding.path("subjects").path(0).path("name").asText());
        assertEquals("streaming", binding.path("subjects").path(0).path("namespace").asText());
        List<ObjectNode> policy = Helm.parseDocuments(
                m.get("ConfigMap", "aloft-autoscaler-policy").path("data").path("policy.yaml").asText());
        JsonNode backend = policy.get(0).path("backend");
        assertEquals("kubernetes", backend.path("type").asText());
        assertEquals("streaming", backend.path("namespace").asText());
        assertEquals("aloft-broker", backend.path("statefulSet").asText());
        assertEquals("http://aloft-broker-{id}.aloft-headless.streaming.svc.cluster.local:9464",
                policy.get(0).path("metrics").path("urlTemplate").asText(), "by pod name: external access changes {host}");
        JsonNode offset = Helm.parseDocuments(Helm.template("--set", "autoscaler.enabled=true,brokers.nodeIdOffset=100")
                .get("ConfigMap", "aloft-autoscaler-policy").path("data").path("policy.yaml").asText()).get(0);
        assertEquals("http://{host}:9464", offset.path("metrics").path("urlTemplate").asText());
        assertEquals(100, offset.path("backend").path("nodeIdOffset").asInt());
        JsonNode args = Manifests.container(m.get("Deployment", "aloft-autoscaler")).path("args");
        assertEquals("aloft-bootstrap.streaming.svc.cluster.local:9092", args.path(4).asText());
        assertEquals("aloft-autoscaler", m.get("Deployment", "aloft-autoscaler").path("spec").path("template")
                .path("spec").path("serviceAccountName").asText());
    }

    @Test
    void optionalObjects_followTheirSwitches() throws Exception {
        Manifests m = Helm.template();
        assertTrue(m.ofKind("ServiceMonitor").isEmpty());
        assertTrue(m.ofKind("NetworkPolicy").isEmpty());
        assertTrue(m.get("ConfigMap", "aloft-dashboard").path("data").path("aloft-dashboard.json").asText()
                .contains("\"uid\": \"aloft-overview\""));
        m = Helm.template("--set", "metrics.serviceMonitor.enabled=true,networkPolicy.enabled=true,metrics.dashboard.enabled=false");
        assertEquals("metrics", m.get("ServiceMonitor", "aloft").path("spec").path("endpoints").path(0).path("port").asText());
        m.get("NetworkPolicy", "aloft");
        assertTrue(m.find("ConfigMap", "aloft-dashboard").isEmpty());
        for (ObjectNode o : m.objects()) {
            JsonNode labels = o.path("metadata").path("labels");
            assertEquals("aloft", labels.path("app.kubernetes.io/name").asText(), o.path("kind") + " labels");
            assertEquals("aloft", labels.path("app.kubernetes.io/instance").asText());
            assertEquals("Helm", labels.path("app.kubernetes.io/managed-by").asText());
        }
    }

    @Test
    void dashboardCopy_matchesConfigGrafana() throws Exception {
        // helm/aloft/files holds a copy (a chart reads files inside its directory only).
        assertEquals(java.nio.file.Files.readString(Helm.ROOT.resolve("config/grafana/aloft-dashboard.json")),
                java.nio.file.Files.readString(Helm.CHART.resolve("files/aloft-dashboard.json")),
                "copy config/grafana/aloft-dashboard.json to helm/aloft/files/ again");
    }

    private static List<String> claimNames(ObjectNode sts) {
        List<String> out = new ArrayList<>();
        sts.path("spec").path("volumeClaimTemplates").forEach(c -> out.add(c.path("metadata").path("name").asText()));
        return out;
    }

    private static JsonNode claim(ObjectNode sts, String name) {
        for (JsonNode c : sts.path("spec").path("volumeClaimTemplates")) {
            if (name.equals(c.path("metadata").path("name").asText())) {
                return c;
            }
        }
        throw new AssertionError("no claim " + name);
    }

    private static List<String> mountPaths(ObjectNode sts) {
        List<String> out = new ArrayList<>();
        Manifests.container(sts).path("volumeMounts").forEach(v -> out.add(v.path("mountPath").asText()));
        return out;
    }
}

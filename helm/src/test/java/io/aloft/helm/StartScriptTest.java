package io.aloft.helm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The rendered start.sh (the containers' command) run by /bin/sh as a process, with a stand-in
 * entrypoint that prints its environment: node.id from the pod ordinal plus the offset, the
 * external advertised address per ordinal, and an empty zone leaving broker.rack unset.
 */
class StartScriptTest {
    @TempDir
    Path dir;

    @Test
    void nodeId_isOffsetPlusOrdinal_andAnEmptyRackIsDropped() throws Exception {
        Map<String, String> env = start("--set brokers.nodeIdOffset=100", "aloft-broker-7", Map.of("ALOFT_PROP_broker_rack", ""));
        assertEquals("107", env.get("ALOFT_NODE_ID"));
        assertFalse(env.containsKey("ALOFT_PROP_broker_rack"));
        assertEquals("eu-west-1b", start("", "aloft-broker-0", Map.of("ALOFT_PROP_broker_rack", "eu-west-1b"))
                .get("ALOFT_PROP_broker_rack"));
    }

    @Test
    void externalAddresses_perOrdinal() throws Exception {
        Map<String, String> env = start("--set external.enabled=true", "aloft-broker-2", Map.of("HOST_IP", "10.0.0.9"));
        assertEquals("PLAINTEXT://10.0.0.9:31092", env.get("ALOFT_PROP_advertised_listeners"));
        env = start("--set external.enabled=true,external.type=LoadBalancer,external.hostTemplate=b{ordinal}.kafka.example.com",
                "aloft-broker-11", Map.of());
        assertEquals("PLAINTEXT://b11.kafka.example.com:9092", env.get("ALOFT_PROP_advertised_listeners"));
        // Two listeners: INTERNAL keeps the pod's DNS name, CLIENT gets the external address.
        env = start("--set external.enabled=true,listeners.internal.protocol=SSL,tls.existingSecret=t,tls.format=keystore,"
                + "tls.keystore.passwordSecret=p", "aloft-broker-2", Map.of("HOST_IP", "10.0.0.9", "POD_NAME", "aloft-broker-2",
                "POD_NAMESPACE", "streaming"));
        assertEquals("INTERNAL://aloft-broker-2.aloft-headless.streaming.svc.cluster.local:9094,CLIENT://10.0.0.9:31092",
                env.get("ALOFT_PROP_advertised_listeners"));
        env = start("--set external.enabled=true,controller.mode=dedicated", "aloft-controller-1",
                Map.of("ALOFT_ROLE", "controller", "ALOFT_NODE_ID_OFFSET", "1000"));
        assertEquals("1001", env.get("ALOFT_NODE_ID"));
        assertFalse(env.containsKey("ALOFT_PROP_advertised_listeners"), "controllers have no Kafka listener");
    }

    @Test
    void aHostnameWithoutOrdinal_stopsWithStatus2() throws Exception {
        Process p = process("", "aloft-broker", Map.of());
        assertTrue(p.waitFor(30, TimeUnit.SECONDS));
        assertEquals(2, p.exitValue());
        assertTrue(new String(p.getErrorStream().readAllBytes()).contains("no ordinal in HOSTNAME=aloft-broker"));
    }

    private Map<String, String> start(String set, String hostname, Map<String, String> env) throws Exception {
        Process p = process(set, hostname, env);
        String out = new String(p.getInputStream().readAllBytes());
        assertTrue(p.waitFor(30, TimeUnit.SECONDS));
        assertEquals(0, p.exitValue(), new String(p.getErrorStream().readAllBytes()));
        Map<String, String> printed = new LinkedHashMap<>();
        for (String line : out.split("\n")) {
            int eq = line.indexOf('=');
            if (eq > 0) {
                printed.put(line.substring(0, eq), line.substring(eq + 1));
            }
        }
        return printed;
    }

    private Process process(String set, String hostname, Map<String, String> env) throws Exception {
        List<String> args = new ArrayList<>();
        if (!set.isEmpty()) {
            args.addAll(List.of(set.split(" ", 2)));
        }
        String script = Helm.template(args.toArray(String[]::new)).get("ConfigMap", "aloft-config")
                .path("data").path("start.sh").asText();
        Path start = Files.writeString(dir.resolve("start.sh"), script);
        Path entrypoint = Files.writeString(dir.resolve("entrypoint.sh"), "#!/bin/sh\nenv\n");
        entrypoint.toFile().setExecutable(true);
        ProcessBuilder pb = new ProcessBuilder("/bin/sh", start.toString());
        pb.environment().clear();
        pb.environment().putAll(Map.of("PATH", "/usr/bin:/bin", "HOSTNAME", hostname, "ALOFT_NODE_ID_OFFSET",
                set.contains("nodeIdOffset=100") ? "100" : "0", "ALOFT_ENTRYPOINT", entrypoint.toString()));
        pb.environment().putAll(env);
        return pb.start();
    }
}

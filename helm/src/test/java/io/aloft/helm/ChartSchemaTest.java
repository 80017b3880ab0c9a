package io.aloft.helm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * values.schema.json and the chart's cross-value checks: a bad value fails {@code helm template}
 * with a message naming the value, and the schema leaves no value unchecked (every object in it
 * closes its keys, apart from the documented free-form maps).
 */
class ChartSchemaTest {
    /** --set argument, then a fragment the error must contain. */
    private static final List<String[]> BAD = List.of(
            new String[] {"brokers.replicas=0", "brokers/replicas"},
            new String[] {"brokers.replicas=three", "brokers/replicas"},
            new String[] {"controller.voters=2", "controller/voters"},
            new String[] {"controller.mode=embedded", "controller/mode"},
            new String[] {"wal.mode=tmpfs", "wal/mode"},
            new String[] {"wal.capacityBytes=1000000", "wal/capacityBytes"},
            new String[] {"wal.volume.size=lots", "wal/volume/size"},
            new String[] {"objectStorage.endpoint=minio:9000", "objectStorage/endpoint"},
            new String[] {"objectStorage.bucket=Bad_Bucket", "objectStorage/bucket"},
            new String[] {"external.nodePortBase=80", "external/nodePortBase"},
            new String[] {"brokers.rack.source=nodeApi", "brokers/rack/source"},
            new String[] {"brokers.replicsa=3", "replicsa"},
            new String[] {"unknownTopLevel=1", "unknownTopLevel"},
            new String[] {"autoscaler.policy.backend.type=local", "backend"},
            // Cross-value checks (templates/_helpers.tpl "aloft.validate").
            new String[] {"brokers.replicas=2", "brokers.replicas (2) must be at least controller.voters (3)"},
            new String[] {"brokers.preStopSleepSeconds=90", "brokers.terminationGracePeriodSeconds must exceed"},
            new String[] {"objectStorage.type=file", "objectStorage.type file"},
            new String[] {"external.enabled=true,external.type=LoadBalancer", "external.hostTemplate"},
            // Listeners, TLS and SASL: the schema, then the combinations (_helpers.tpl).
            new String[] {"listeners.client.protocol=TLS", "listeners/client/protocol"},
            new String[] {"listeners.internal.protocol=SASL_SSL", "listeners/internal/protocol"},
            new String[] {"listeners.internal.port=70000", "listeners/internal/port"},
            new String[] {"tls.format=jks", "tls/format"},
            new String[] {"tls.clientAuth=true", "tls/clientAuth"},
            new String[] {"tls.keystore.type=PEM", "tls/keystore/type"},
            new String[] {"tls.pem.privateKeyKey=../etc/passwd", "tls/pem/privateKeyKey"},
            new String[] {"tls.existingSecret=Aloft_TLS", "tls/existingSecret"},
            new String[] {"sasl.mechanisms={GSSAPI}", "sasl/mechanisms"},
            new String[] {"sasl.mechanisms={}", "sasl/mechanisms"},
            new String[] {"sasl.plain.password=secret", "password"},
            new String[] {"listeners.client.protocol=SSL", "listeners.client.protocol SSL / listeners.internal.protocol PLAINTEXT use TLS: set tls.existingSecret"},
            new String[] {"listeners.internal.protocol=SSL", "use TLS: set tls.existingSecret"},
            new String[] {"tls.existingSecret=aloft-tls", "tls.existingSecret is set but no listener uses TLS"},
            new String[] {"listeners.client.protocol=SSL,tls.existingSecret=t,tls.format=keystore", "tls.format keystore needs tls.keystore.passwordSecret"},
            new String[] {"tls.clientAuth=required,listeners.client.protocol=SASL_PLAINTEXT,sasl.plain.existingSecret=u",
                "tls.clientAuth required needs listeners.client.protocol SSL or SASL_SSL (it is SASL_PLAINTEXT)"},
            new String[] {"listeners.client.protocol=SSL,tls.existingSecret=t,tls.clientAuth=required,tls.pem.caKey=",
                "tls.clientAuth required needs the CAs client certificates must chain to"},
            new String[] {"listeners.client.protocol=SASL_PLAINTEXT", "PLAIN in sasl.mechanisms needs sasl.plain.existingSecret"},
            new String[] {"listeners.client.protocol=SASL_SSL,tls.existingSecret=t", "SASL_SSL with PLAIN in sasl.mechanisms needs sasl.plain.existingSecret"},
            new String[] {"sasl.plain.existingSecret=u", "sasl.plain.existingSecret is set but PLAIN is not served"},
            new String[] {"listeners.client.protocol=SASL_PLAINTEXT,sasl.mechanisms={SCRAM-SHA-256},sasl.plain.existingSecret=u",
                "sasl.plain.existingSecret is set but PLAIN is not served"},
            new String[] {"listeners.internal.protocol=SSL,tls.existingSecret=t,listeners.internal.port=9093", "listeners.internal.port 9093 is already"},
            new String[] {"listeners.internal.protocol=SSL,tls.existingSecret=t,tls.format=keystore,tls.keystore.passwordSecret=p,autoscaler.enabled=true",
                "autoscaler.enabled with listeners.internal.protocol SSL needs tls.format pem"});

    @Test
    void badValues_areRefusedNamingTheValue() throws Exception {
        for (String[] bad : BAD) {
            Helm.Result r = Helm.run("template", "aloft", Helm.CHART.toString(), "--set", bad[0]);
            assertNotEquals(0, r.exit(), bad[0] + " was accepted");
            assertTrue(r.stderr().contains(bad[1]), bad[0] + ": the error does not name " + bad[1] + ":\n" + r.stderr());
        }
    }

    @Test
    void goodValues_pass() throws Exception {
        Helm.Result r = Helm.run("template", "aloft", Helm.CHART.toString(), "--set",
                "brokers.replicas=5,controller.voters=5,wal.mode=block,wal.capacityBytes=4096000000,"
                        + "brokers.config.num\\.partitions=6");
        assertEquals(0, r.exit(), r.stderr());
        // SCRAM alone needs no users' Secret (its users live in the controller).
        r = Helm.run("template", "aloft", Helm.CHART.toString(), "--set",
                "listeners.client.protocol=SASL_SSL,tls.existingSecret=t,sasl.mechanisms={SCRAM-SHA-256,SCRAM-SHA-512}");
        assertEquals(0, r.exit(), r.stderr());
    }
}

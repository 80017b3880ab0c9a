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
            new String[] {"external.enabled=true,external.type=LoadBalancer", "external.hostTemplate"});

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
    }
}

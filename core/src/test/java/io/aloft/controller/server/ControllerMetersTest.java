package io.aloft.controller.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.aloft.controller.TestQuorum;
import io.aloft.metrics.PromTool;
import io.aloft.metrics.ServerMetrics;
import io.micrometer.core.instrument.MeterRegistry;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Each voter's quorum meters agree with the quorum: one active controller, the same leader and term everywhere. */
class ControllerMetersTest {

    @Test
    void threeVoters_oneActiveController_andTheSameLeaderEverywhere(@TempDir Path dir) throws Exception {
        List<ServerMetrics> metrics = new ArrayList<>();
        try (TestQuorum quorum = new TestQuorum(dir, 3)) {
            for (int id = 1; id <= 3; id++) {
                ServerMetrics m = ServerMetrics.create();
                quorum.server(id).bindMeters(m.registry());
                metrics.add(m);
            }
            int leader = quorum.awaitLeader();
            quorum.awaitApplied(quorum.maxApplied());
            double active = 0;
            for (int id = 1; id <= 3; id++) {
                MeterRegistry r = metrics.get(id - 1).registry();
                active += value(r, "kafka.controller.kafkacontroller.activecontrollercount");
                assertEquals(leader, value(r, "kafka.server.raft.metrics.current.leader"), "voter " + id);
                assertTrue(value(r, "kafka.server.raft.metrics.current.epoch") >= 1, "voter " + id);
                assertTrue(value(r, "kafka.server.raft.metrics.log.end.offset")
                        >= value(r, "kafka.server.raft.metrics.high.watermark"), "voter " + id);
            }
            assertEquals(1, active, "exactly one voter is the active controller");
            MeterRegistry leaders = metrics.get(leader - 1).registry();
            double applied = value(leaders, "aloft.controller.applied.index");
            assertTrue(applied > 0 && applied <= value(leaders, "kafka.server.raft.metrics.high.watermark"),
                    "the leader applies only what is committed");
            PromTool.Result check = PromTool.checkMetrics(metrics.get(0).scrape());
            assertEquals(0, check.exitCode(), check.output());
        } finally {
            metrics.forEach(ServerMetrics::close);
        }
    }

    private static double value(MeterRegistry registry, String name) {
        return registry.get(name).gauge().value();
    }
}

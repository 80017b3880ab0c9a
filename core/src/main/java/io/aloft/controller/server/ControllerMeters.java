package io.aloft.controller.server;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.aloft.controller.RaftSetup;
import java.io.IOException;
import java.util.function.ToDoubleFunction;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.raftlog.RaftLog;

/**
 * A controller voter's quorum state as meters, named after Kafka's KRaft meters
 * ({@code kafka.controller:type=KafkaController} and the {@code raft-metrics} group) so KRaft
 * alerts carry over: whether this voter is the active controller, the leader it knows, the term
 * (Kafka's epoch), its log end and commit (high watermark) indexes and what it has applied. Read
 * from Ratis at scrape time; nothing is counted on the Raft path.
 *
 * <p>Stateless; the gauges read the server from the scraping thread.
 */
final class ControllerMeters {

    private ControllerMeters() {
    }

    static void bind(MeterRegistry registry, RaftServer server, ControllerStateMachine stateMachine, int nodeId) {
        gauge(registry, "kafka.controller.kafkacontroller.activecontrollercount",
                "1 while this voter is the quorum's leader and ready to serve (sum over voters: 1 when healthy)",
                server, s -> division(s) == null ? 0 : division(s).getInfo().isLeaderReady() ? 1 : 0);
        gauge(registry, "kafka.server.raft.metrics.current.leader",
                "Node id of the leader this voter knows, -1 when it knows none",
                server, s -> {
                    RaftServer.Division d = division(s);
                    if (d == null || d.getInfo().getLeaderId() == null) {
                        return -1;
                    }
                    return RaftSetup.nodeId(d.getInfo().getLeaderId());
                });
        gauge(registry, "kafka.server.raft.metrics.current.epoch",
                "The Raft term this voter is in (Kafka's leader epoch of the metadata log)",
                server, s -> division(s) == null ? -1 : division(s).getInfo().getCurrentTerm());
        gauge(registry, "kafka.server.raft.metrics.log.end.offset",
                "Index of the last entry in this voter's Raft log", server, s -> {
                    RaftServer.Division d = division(s);
                    RaftLog log = d == null ? null : d.getRaftLog();
                    return log == null || log.getLastEntryTermIndex() == null ? -1
                            : log.getLastEntryTermIndex().getIndex();
                });
        gauge(registry, "kafka.server.raft.metrics.high.watermark",
                "Index of the last entry this voter knows is committed by a majority", server, s -> {
                    RaftServer.Division d = division(s);
                    return d == null ? -1 : d.getRaftLog().getLastCommittedIndex();
                });
        gauge(registry, "aloft.controller.applied.index",
                "Index of the last entry this voter applied to its metadata state (high watermark minus this: its lag)",
                stateMachine, m -> m.getLastAppliedTermIndex().getIndex());
        Gauge.builder("aloft.controller.voter", () -> 1).description("This process runs controller voter node_id")
                .tag("node_id", Integer.toString(nodeId)).register(registry);
    }

    private static <T> void gauge(MeterRegistry registry, String name, String help, T source, ToDoubleFunction<T> f) {
        Gauge.builder(name, source, f).description(help).register(registry);
    }

    /** The voter's Raft division, or null while it is not (or no longer) there. */
    private static RaftServer.Division division(RaftServer server) {
        try {
            return server.getDivision(RaftSetup.groupId());
        } catch (IOException e) {
            return null;
        }
    }
}

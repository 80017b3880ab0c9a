package io.aloft.controller.state;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.aloft.controller.command.CreateTopic;
import io.aloft.controller.command.Failure;
import io.aloft.controller.command.RegisterBroker;
import io.aloft.controller.command.Reply;
import io.aloft.controller.command.Request;
import io.aloft.controller.model.FeatureRange;
import io.aloft.controller.model.Endpoint;
import io.aloft.controller.model.MetadataEvent;
import io.aloft.controller.model.PartitionInfo;
import io.aloft.controller.model.TopicInfo;
import io.aloft.controller.query.Queries;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/** A state plus helpers that apply commands as one client would, at increasing log indexes. */
abstract class StateTestSupport {
    static final UUID CLIENT = new UUID(7, 7);
    static final List<Endpoint> ENDPOINTS = List.of(new Endpoint("PLAINTEXT", "h", 9092, "PLAINTEXT"));

    ControllerState state = new ControllerState();
    final List<MetadataEvent> events = new ArrayList<>();
    long index;
    long sequence;
    long nowMs = 1_000;

    Reply apply(Object command) {
        return state.apply(++index, new Request(CLIENT, ++sequence, nowMs, command), events::add);
    }

    @SuppressWarnings("unchecked")
    <T> T ok(Object command) {
        Reply reply = apply(command);
        assertNull(reply.failure(), () -> command + " failed: " + reply.failure());
        return (T) reply.value();
    }

    static void assertFailure(Reply reply, String domain, String code) {
        assertNull(reply.value());
        assertEquals(domain, reply.failure().domain(), reply.failure().toString());
        assertEquals(code, reply.failure().code(), reply.failure().toString());
    }

    void rejected(Object command, String code) {
        assertFailure(apply(command), Failure.CONTROLLER, code);
    }

    long register(int brokerId, String incarnation) {
        return ok(new RegisterBroker(brokerId, incarnation, ENDPOINTS, null, FeatureRange.INITIAL_ONLY));
    }

    TopicInfo createTopic(String name, int partitions) {
        return ok(new CreateTopic(UUID.nameUUIDFromBytes(name.getBytes()), name, partitions, 1, Map.of()));
    }

    @SuppressWarnings("unchecked")
    TopicInfo topic(String name) {
        List<TopicInfo> found = (List<TopicInfo>) state.query(new Queries.GetTopics(List.of(name)), index).value();
        return found.isEmpty() ? null : found.get(0);
    }

    static List<Integer> brokersOf(TopicInfo t) {
        return t.partitions().stream().map(PartitionInfo::brokerId).toList();
    }

    static List<Integer> epochsOf(TopicInfo t) {
        return t.partitions().stream().map(PartitionInfo::leaderEpoch).toList();
    }

    /** The state without the request log, which remembers every reply (rejections included) by design. */
    String dumpWithoutSessions(ControllerState s) {
        ControllerSnapshot x = s.snapshot();
        return new ControllerSnapshot(x.streams(), x.nextBrokerEpoch(), x.brokers(), x.topics(), x.kv(), x.clockMs(),
                x.lastSessionSweepMs(), List.of(), x.nextProducerId(), x.finalizedFeatureLevel(), x.voterFeatures(),
                x.featureLevelBootstrapped())
                .dump();
    }
}

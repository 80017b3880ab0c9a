package io.aloft.controller.state;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.aloft.controller.command.BrokerHeartbeat;
import io.aloft.controller.command.FenceBroker;
import io.aloft.controller.command.RegisterBroker;
import io.aloft.controller.command.Reply;
import io.aloft.controller.command.ReportVoterFeatures;
import io.aloft.controller.command.Request;
import io.aloft.controller.command.UpdateFeatureLevel;
import io.aloft.controller.model.BrokerState;
import io.aloft.controller.model.FeatureRange;
import io.aloft.controller.model.FeatureStatus;
import io.aloft.controller.model.MetadataEvent;
import io.aloft.controller.model.VoterFeatures;
import io.aloft.controller.query.Queries;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** The finalized feature level in the replicated state: reports, upgrades, and what they refuse. */
class FeatureLevelStateTest extends StateTestSupport {
    private static final FeatureRange ONE = new FeatureRange(1, 1);
    private static final FeatureRange ONE_TO_TWO = new FeatureRange(1, 2);

    private FeatureStatus status() {
        return (FeatureStatus) state.query(new Queries.DescribeFeatures(), index).value();
    }

    private Reply upgrade(int level, Integer... voters) {
        return apply(new UpdateFeatureLevel(level, List.of(voters)));
    }

    private void failsWith(Reply reply, String code, String messagePart) {
        assertFailure(reply, "controller", code);
        assertTrue(reply.failure().message().contains(messagePart), reply.failure().message());
    }

    @Test
    void aNewStateIsAtLevelOne_andVotersReportTheirRanges() {
        assertEquals(new FeatureStatus(1, List.of()), status());
        ok(new ReportVoterFeatures(2, ONE, List.of()));
        ok(new ReportVoterFeatures(1, ONE, List.of()));
        ok(new ReportVoterFeatures(2, ONE_TO_TWO, List.of())); // a report replaces the voter's earlier one
        assertEquals(new FeatureStatus(1, List.of(new VoterFeatures(1, ONE), new VoterFeatures(2, ONE_TO_TWO))),
                status());
        assertEquals(1, state.image(index).finalizedFeatureLevel());
    }

    @Test
    void theUpgradeNeedsEveryNamedVoterToSupportTheLevel() {
        ok(new ReportVoterFeatures(1, ONE_TO_TWO, List.of()));
        ok(new ReportVoterFeatures(2, ONE, List.of()));
        failsWith(upgrade(2, 1, 2), "INVALID_FEATURE_UPDATE", "voter 2 supports 1..1");
        failsWith(upgrade(2, 1, 3), "INVALID_FEATURE_UPDATE", "voter 3 has not reported");
        failsWith(upgrade(2), "INVALID_REQUEST", "no voters named");
        assertEquals(1, state.finalizedFeatureLevel());

        ok(new ReportVoterFeatures(2, ONE_TO_TWO, List.of()));
        events.clear();
        assertEquals(2, (int) ok(new UpdateFeatureLevel(2, List.of(1, 2))));
        assertEquals(2, state.finalizedFeatureLevel());
        assertEquals(List.of(MetadataEvent.featureLevelChanged(index, 2)), events);
        assertEquals(2, state.image(index).finalizedFeatureLevel());

        // The same level again is a no-op; lower is refused (no downgrade).
        events.clear();
        assertEquals(2, (int) ok(new UpdateFeatureLevel(2, List.of(1, 2))));
        assertEquals(List.of(), events);
        failsWith(upgrade(1, 1, 2), "INVALID_FEATURE_UPDATE", "lowering it to 1 is not supported");
        failsWith(upgrade(0, 1, 2), "INVALID_FEATURE_UPDATE", "does not exist");
    }

    @Test
    void unfencedBrokersMustSupportTheLevel_fencedOnesStayFencedUntilTheyDo() {
        ok(new ReportVoterFeatures(1, ONE_TO_TWO, List.of()));
        long epoch = ok(new RegisterBroker(5, "old-build", ENDPOINTS, null, ONE));
        failsWith(upgrade(2, 1), "INVALID_FEATURE_UPDATE", "broker 5 (ACTIVE) supports 1..1");

        ok(new FenceBroker(5, epoch));
        assertEquals(2, (int) ok(new UpdateFeatureLevel(2, List.of(1))));
        // A heartbeat would unfence it, but it cannot read what the cluster now writes.
        failsWith(apply(new BrokerHeartbeat(5, epoch)), "UNSUPPORTED_FEATURE_LEVEL",
                "broker 5 supports feature levels 1..1");
        assertEquals(BrokerState.FENCED, state.broker(5).state());
        // Neither can a new run of the old build register; a run of a build that supports level 2 can.
        failsWith(apply(new RegisterBroker(5, "old-build-again", ENDPOINTS, null, ONE)),
                "UNSUPPORTED_FEATURE_LEVEL", "excludes the cluster's finalized level 2");
        ok(new RegisterBroker(5, "new-build", ENDPOINTS, null, ONE_TO_TWO));
        assertEquals(BrokerState.ACTIVE, state.broker(5).state());
        assertEquals(ONE_TO_TWO, state.broker(5).supportedFeatures());
        // And a voter whose build stops below the level cannot report as one that follows.
        failsWith(apply(new ReportVoterFeatures(3, ONE, List.of())), "UNSUPPORTED_FEATURE_LEVEL",
                "voter 3 supports feature levels 1..1");
    }

    @Test
    void refusedFeatureCommandsChangeNothing_andTheLevelSurvivesASnapshot() {
        ok(new ReportVoterFeatures(1, ONE, List.of()));
        String before = dumpWithoutSessions(state);
        upgrade(2, 1);
        upgrade(2, 9);
        apply(new ReportVoterFeatures(-1, ONE, List.of()));
        assertEquals(before, dumpWithoutSessions(state));

        ok(new ReportVoterFeatures(1, ONE_TO_TWO, List.of()));
        ok(new UpdateFeatureLevel(2, List.of(1)));
        ControllerState restored = new ControllerState();
        restored.restore(state.snapshot());
        assertEquals(2, restored.finalizedFeatureLevel());
        assertEquals(state.snapshot().dump(), restored.snapshot().dump());
        assertTrue(state.snapshot().dump().contains("finalizedFeatureLevel=2"));
        assertTrue(state.snapshot().dump().contains("voter 1 supports=1..2"));
    }

    @Test
    void aNewCluster_finalizesTheHighestLevelItsVotersSupport_onceAllHaveReported() {
        ok(new ReportVoterFeatures(1, ONE_TO_TWO, List.of(1, 2, 3)));
        ok(new ReportVoterFeatures(2, ONE_TO_TWO, List.of(1, 2, 3)));
        assertEquals(1, state.finalizedFeatureLevel(), "voter 3 has not reported yet");
        events.clear();
        ok(new ReportVoterFeatures(3, ONE_TO_TWO, List.of(1, 2, 3)));
        assertEquals(2, state.finalizedFeatureLevel());
        assertEquals(List.of(MetadataEvent.featureLevelChanged(index, 2)), events);
        assertTrue(state.snapshot().featureLevelBootstrapped());
    }

    @Test
    void bootstrap_takesTheLowestMaximum_andUnfencedBrokersCapIt() {
        long epoch = ok(new RegisterBroker(5, "old-build", ENDPOINTS, null, ONE));
        ok(new ReportVoterFeatures(1, ONE_TO_TWO, List.of(1)));
        assertEquals(1, state.finalizedFeatureLevel(), "broker 5 reads level 1 only");
        assertTrue(state.snapshot().featureLevelBootstrapped());
        ok(new FenceBroker(5, epoch));
        // Bootstrapped once: later reports never raise the level by themselves (rolling upgrades stay
        // reversible until an explicit upgrade).
        ok(new ReportVoterFeatures(1, ONE_TO_TWO, List.of(1)));
        assertEquals(1, state.finalizedFeatureLevel());

        ControllerState fresh = new ControllerState();
        fresh.apply(1, new Request(UUID.randomUUID(), 1, 0, new ReportVoterFeatures(1, ONE_TO_TWO,
                List.of(1, 2))), e -> { });
        fresh.apply(2, new Request(UUID.randomUUID(), 1, 0, new ReportVoterFeatures(2, ONE,
                List.of(1, 2))), e -> { });
        assertEquals(1, fresh.finalizedFeatureLevel(), "voter 2 supports level 1 only");
        assertTrue(fresh.snapshot().featureLevelBootstrapped());
        ControllerState restored = new ControllerState();
        restored.restore(fresh.snapshot());
        assertTrue(restored.snapshot().featureLevelBootstrapped(), "the flag survives a snapshot");
    }
}

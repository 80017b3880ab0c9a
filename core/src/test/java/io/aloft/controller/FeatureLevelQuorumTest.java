package io.aloft.controller;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.aloft.controller.client.ControllerClient;
import io.aloft.controller.codec.ControllerCodec;
import io.aloft.controller.codec.NextLevelSchemas;
import io.aloft.controller.command.PutKv;
import io.aloft.controller.command.Reply;
import io.aloft.controller.command.Request;
import io.aloft.controller.command.UpdateFeatureLevel;
import io.aloft.controller.model.ClusterImage;
import io.aloft.controller.model.FeatureLevel;
import io.aloft.controller.model.FeatureRange;
import io.aloft.controller.model.FeatureStatus;
import io.aloft.controller.model.VoterFeatures;
import io.aloft.controller.query.Queries;
import io.aloft.controller.server.ControllerServer;
import java.nio.file.Path;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A feature level upgrade on a real 3-voter quorum, with a test-only registry standing for the
 * next build ({@link NextLevelSchemas}: {@code PutKv} v1 needs the level after this build's newest).
 * While one voter runs the current build, a next-level entry is refused on every voter and the
 * upgrade is refused; once all
 * run the next build, the upgrade is accepted and the entry applies. A voter whose build cannot
 * follow a level the others finalized stops itself.
 */
class FeatureLevelQuorumTest {
    private static final ControllerServer.Options NEXT_BUILD = new ControllerServer.Options(NextLevelSchemas.REGISTRY,
            true);
    /** This build's newest level, which a new quorum of this build finalizes at once. */
    private static final int NOW = FeatureLevel.LATEST;
    private static final int NEXT_LEVEL = NextLevelSchemas.LEVEL;
    private static final FeatureRange CURRENT = new FeatureRange(1, NOW);
    private static final FeatureRange NEXT = new FeatureRange(1, NEXT_LEVEL);
    private static final UUID RAW_CLIENT = new UUID(42, 42);

    @TempDir
    Path dir;

    @Test
    void encodingForThisLevelWritesVersionZero_theNextLevelWritesVersionOne() {
        ControllerCodec codec = NextLevelSchemas.CODEC;
        Request put = new Request(RAW_CLIENT, 1, 1, new PutKv("k", new byte[] {1}));
        byte[] v0 = codec.encode(put, NOW, NOW);
        byte[] v1 = codec.encode(put, NEXT_LEVEL, NEXT_LEVEL);
        assertEquals(1, codec.header(v0).level());
        assertEquals(NEXT_LEVEL, codec.header(v1).level());
        assertTrue(codec.render(put, NOW).contains("command: PutKv v0 {key: \"k\", value: 0x01}"),
                codec.render(put, NOW));
        assertTrue(codec.render(put, NEXT_LEVEL).contains("command: PutKv v1 {key: \"k\", value: 0x01, note: null}"),
                codec.render(put, NEXT_LEVEL));
        assertEquals(new PutKv("k", new byte[] {1}).key(), codec.decode(v1, Request.class).command() instanceof PutKv p
                ? p.key() : null, "version 1 decodes back to the same command");
    }

    @Test
    void upgradeIsRefusedUntilEveryVoterSupportsTheLevel_thenTheNewVersionApplies() throws Exception {
        try (TestQuorum q = new TestQuorum(dir, 3, b -> b, id -> id == 3 ? ControllerServer.Options.DEFAULT
                : NEXT_BUILD);
                ControllerClient client = ControllerClient.create(q.clientConfig(), NextLevelSchemas.REGISTRY);
                RaftClient raw = rawClient(q)) {
            q.awaitLeader();
            awaitReports(client, List.of(new VoterFeatures(1, NEXT), new VoterFeatures(2, NEXT),
                    new VoterFeatures(3, CURRENT)));

            // A next-level entry before the upgrade: refused on every voter (voter 3 could not even decode it).
            Reply refused = send(raw, new Request(RAW_CLIENT, 1, 1, new PutKv("k", new byte[] {7})), NEXT_LEVEL);
            assertEquals("FEATURE_LEVEL_NOT_FINALIZED", refused.failure().code(), refused.failure().toString());
            q.awaitApplied(q.maxApplied());
            for (int id = 1; id <= 3; id++) {
                assertFalse(q.server(id).state().dump().contains("kv \"k\""), "voter " + id);
            }

            ExecutionException upgrade = assertThrows(ExecutionException.class,
                    () -> client.updateFeatureLevel(NEXT_LEVEL).get(60, TimeUnit.SECONDS));
            assertTrue(upgrade.getCause() instanceof ControllerException ce
                    && ce.code() == ControllerException.Code.INVALID_FEATURE_UPDATE
                    && ce.getMessage().contains("voter 3 supports 1.." + NOW), upgrade.getCause().toString());

            // Voter 3 gets the next build; it reports its new range when it starts.
            q.stop(3);
            q.start(3, NEXT_BUILD);
            awaitReports(client, List.of(new VoterFeatures(1, NEXT), new VoterFeatures(2, NEXT),
                    new VoterFeatures(3, NEXT)));
            assertEquals(NEXT_LEVEL, client.updateFeatureLevel(NEXT_LEVEL).get(60, TimeUnit.SECONDS));
            assertEquals(NEXT_LEVEL, client.query(new Queries.DescribeCluster(), ClusterImage.class)
                    .get(60, TimeUnit.SECONDS).finalizedFeatureLevel());

            Reply applied = send(raw, new Request(RAW_CLIENT, 2, 2, new PutKv("k", new byte[] {7})), NEXT_LEVEL);
            assertNull(applied.failure());
            // Another client's write: the reading client has no index of it to wait for, so every voter must have it.
            q.awaitApplied(q.maxApplied());
            assertArrayEquals(new byte[] {7}, client.query(new Queries.GetKv("k"), byte[].class)
                    .get(60, TimeUnit.SECONDS));
            // The client learned the level from replies and writes version 1 itself now.
            assertEquals(NEXT_LEVEL, client.featureLevel());
            client.submit(new PutKv("k2", new byte[] {8})).get(60, TimeUnit.SECONDS);
            q.awaitApplied(q.maxApplied());
            String leader = q.server(1).state().dump();
            assertTrue(leader.contains("finalizedFeatureLevel=" + NEXT_LEVEL) && leader.contains("kv \"k2\""), leader);
            for (int id = 2; id <= 3; id++) {
                assertEquals(leader, q.server(id).state().dump(), "voter " + id);
            }
        }
    }

    @Test
    void aVoterWhoseBuildCannotFollowTheFinalizedLevelStopsItself() throws Exception {
        try (TestQuorum q = new TestQuorum(dir, 3, b -> b, id -> id == 3 ? ControllerServer.Options.DEFAULT
                : NEXT_BUILD);
                ControllerClient client = ControllerClient.create(q.clientConfig(), NextLevelSchemas.REGISTRY)) {
            q.awaitLeader();
            awaitReports(client, List.of(new VoterFeatures(1, NEXT), new VoterFeatures(2, NEXT),
                    new VoterFeatures(3, CURRENT)));
            // A submitter with a stale view of the configuration names voters 1 and 2 only.
            assertEquals(NEXT_LEVEL, client.submit(new UpdateFeatureLevel(NEXT_LEVEL, List.of(1, 2)), Integer.class)
                    .get(60, TimeUnit.SECONDS));
            Throwable why = q.server(3).failure().get(60, TimeUnit.SECONDS);
            assertTrue(why.getMessage().contains("finalized feature level " + NEXT_LEVEL)
                    && why.getMessage().contains("supports 1.." + NOW), why.getMessage());
            q.stop(3);
            // The others carry on.
            client.submit(new PutKv("after", new byte[] {1})).get(60, TimeUnit.SECONDS);
        }
    }

    private static RaftClient rawClient(TestQuorum q) {
        return RaftClient.newBuilder().setProperties(RaftSetup.baseProperties())
                .setRaftGroup(RaftSetup.group(q.config(1).voters())).build();
    }

    /** Sends {@code request} as its own log entry, encoded for {@code level}, and decodes the reply. */
    private static Reply send(RaftClient raw, Request request, int level) throws Exception {
        byte[] frame = NextLevelSchemas.CODEC.encode(request, level, level);
        RaftClientReply reply = raw.async().send(Message.valueOf(ByteString.copyFrom(frame))).get(60,
                TimeUnit.SECONDS);
        assertTrue(reply.isSuccess(), String.valueOf(reply.getException()));
        return NextLevelSchemas.CODEC.decode(reply.getMessage().getContent().toByteArray(), Reply.class);
    }

    /** Waits until the voters' reports are exactly {@code expected} (voters report when they start). */
    private static void awaitReports(ControllerClient client, List<VoterFeatures> expected) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        FeatureStatus status = null;
        while (System.nanoTime() < deadline) {
            status = client.query(new Queries.DescribeFeatures(), FeatureStatus.class).get(60, TimeUnit.SECONDS);
            if (status.voters().equals(expected)) {
                return;
            }
            Thread.sleep(50);
        }
        throw new AssertionError("voters reported " + status + ", not " + expected);
    }
}

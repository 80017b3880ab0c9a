package io.aloft.controller;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.aloft.controller.client.ControllerClient;
import io.aloft.controller.codec.ControllerCodec;
import io.aloft.controller.codec.ControllerSchemas;
import io.aloft.controller.model.ClusterImage;
import io.aloft.controller.model.FeatureLevel;
import io.aloft.controller.query.Queries;
import io.aloft.controller.server.ControllerServer;
import io.aloft.controller.server.SnapshotFile;
import io.aloft.controller.state.ControllerSnapshot;
import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Comparator;
import java.util.List;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.protocol.ClientId;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.io.TempDir;

/**
 * A real Ratis storage directory written by a build of each feature level (log segments, a
 * snapshot and its MD5 file, under {@code golden/controller/raft/level-N/}), from
 * {@link GoldenWorkload}. Every later build must replay it to the same state: from the snapshot
 * and the log after it, from the log alone, and the snapshot file alone must decode to the state
 * at its index. The voter starts on another port than the one the fixture was made on (the
 * addresses in the log are the old ones; the group id and peer id are fixed).
 *
 * <p>{@code -Daloft.golden.regenerate=true} rewrites the fixture of the current feature level only.
 */
class GoldenRaftStorageTest {
    private static final String DIR = "golden/controller/raft/level-" + FeatureLevel.LATEST;
    private static final ControllerCodec CODEC = ControllerSchemas.CODEC;

    @TempDir
    Path tmp;

    @Test
    void replayFromSnapshotAndLogTail_givesTheRecordedState() throws Exception {
        for (Path fixture : fixtures()) {
            Path data = copy(fixture.resolve("storage"), tmp.resolve(fixture.getFileName() + "-with-snapshot"));
            assertTrue(!snapshotFiles(data).isEmpty(), "the fixture has a snapshot");
            assertEquals(expected(fixture, "state.txt"), replay(fixture, data), fixture.toString());
        }
    }

    @Test
    void replayFromTheLogAlone_givesTheRecordedState() throws Exception {
        for (Path fixture : fixtures()) {
            Path data = copy(fixture.resolve("storage"), tmp.resolve(fixture.getFileName() + "-log-only"));
            for (Path p : snapshotFiles(data)) {
                Files.delete(p);
            }
            assertEquals(expected(fixture, "state.txt"), replay(fixture, data), fixture.toString());
        }
    }

    @Test
    void theSnapshotFileAloneDecodesToTheStateAtItsIndex() throws Exception {
        for (Path fixture : fixtures()) {
            Properties props = properties(fixture);
            List<Path> snapshots = snapshotFiles(fixture.resolve("storage")).stream()
                    .filter(p -> !p.toString().endsWith(".md5")).toList();
            assertEquals(1, snapshots.size(), snapshots.toString());
            assertTrue(snapshots.get(0).getFileName().toString().endsWith("_" + props.getProperty("snapshotIndex")));
            ControllerSnapshot snapshot = SnapshotFile.read(snapshots.get(0), CODEC);
            assertEquals(expected(fixture, "state-at-snapshot.txt"), CODEC.render(snapshot,
                    snapshot.finalizedFeatureLevel()));
        }
    }

    /** Starts a voter on {@code data} on a new port, waits for the fixture's last index, and renders the state. */
    private String replay(Path fixture, Path data) throws Exception {
        long lastIndex = Long.parseLong(properties(fixture).getProperty("lastIndex"));
        String voters = "1@127.0.0.1:" + TestQuorum.freePort();
        assertTrue(!voters.equals(properties(fixture).getProperty("voters")), "another port than the fixture's");
        ControllerConfig config = config(voters, data);
        try (ControllerServer server = ControllerServer.start(config,
                new ControllerServer.Options(CODEC.registry(), false))) {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (server.lastAppliedIndex() < lastIndex && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            assertTrue(server.lastAppliedIndex() >= lastIndex, "replayed to " + server.lastAppliedIndex());
            // Clients reach it at its new address.
            try (ControllerClient client = ControllerClient.create(ControllerConfig.builder().nodeId(100)
                    .voters(voters).dataDir(tmp.resolve("client")).requestTimeoutMs(30_000).build())) {
                ClusterImage image = client.query(new Queries.DescribeCluster(), ClusterImage.class)
                        .get(60, TimeUnit.SECONDS);
                assertTrue(image.appliedIndex() >= lastIndex);
            }
            ControllerSnapshot state = server.state();
            return CODEC.render(state, state.finalizedFeatureLevel());
        }
    }

    @Test
    @EnabledIfSystemProperty(named = "aloft.golden.regenerate", matches = "true")
    void regenerateTheFixtureOfTheCurrentLevel() throws Exception {
        Path out = Path.of("src/test/resources").resolve(DIR);
        if (Files.exists(out)) {
            try (Stream<Path> old = Files.walk(out)) {
                for (Path p : old.sorted(Comparator.reverseOrder()).toList()) {
                    Files.delete(p);
                }
            }
        }
        Path data = tmp.resolve("generate");
        String voters = "1@127.0.0.1:" + TestQuorum.freePort();
        int level = FeatureLevel.LATEST;
        long snapshotIndex;
        long lastIndex;
        try (ControllerServer server = ControllerServer.start(config(voters, data),
                new ControllerServer.Options(CODEC.registry(), false));
                RaftClient raft = RaftClient.newBuilder().setProperties(RaftSetup.baseProperties())
                        .setClientId(ClientId.valueOf(new UUID(0xA10F7, 0)))
                        .setRaftGroup(RaftSetup.group(config(voters, data).voters())).build()) {
            GoldenWorkload workload = new GoldenWorkload(raft, CODEC, level);
            workload.firstHalf();
            snapshotIndex = server.takeSnapshot();
            workload.secondHalf();
            lastIndex = server.lastAppliedIndex();
            Files.createDirectories(out);
            ControllerSnapshot state = server.state();
            Files.writeString(out.resolve("state.txt"), CODEC.render(state, level), StandardCharsets.UTF_8);
        }
        // A clean stop snapshots the end of the log; keep only the snapshot in the middle, so a replay has a tail.
        for (Path p : snapshotFiles(data)) {
            if (!p.getFileName().toString().contains("_" + snapshotIndex)) {
                Files.delete(p);
            }
        }
        for (Path p : snapshotFiles(data)) {
            if (!p.toString().endsWith(".md5")) {
                ControllerSnapshot atSnapshot = SnapshotFile.read(p, CODEC);
                Files.writeString(out.resolve("state-at-snapshot.txt"), CODEC.render(atSnapshot, level),
                        StandardCharsets.UTF_8);
            }
        }
        copy(data, out.resolve("storage"));
        Files.writeString(out.resolve("fixture.properties"), "# Written by GoldenRaftStorageTest's generator.\n"
                + "featureLevel=" + level + "\nvoters=" + voters + "\nsnapshotIndex=" + snapshotIndex
                + "\nlastIndex=" + lastIndex + "\n", StandardCharsets.UTF_8);
    }

    private static ControllerConfig config(String voters, Path data) {
        // No broker heartbeats come: a long session keeps the leader from writing fences into the log.
        return ControllerConfig.builder().nodeId(1).voters(voters).dataDir(data).requestTimeoutMs(30_000)
                .sessionTimeoutMs(3_600_000).build();
    }

    /** Every level's fixture directory. */
    private static List<Path> fixtures() throws Exception {
        Path root = Path.of(GoldenRaftStorageTest.class.getResource("/golden/controller/raft").toURI());
        try (Stream<Path> dirs = Files.list(root)) {
            List<Path> out = dirs.filter(Files::isDirectory).sorted().toList();
            assertTrue(!out.isEmpty(), "fixtures under " + root);
            return out;
        }
    }

    private static Properties properties(Path fixture) throws IOException {
        Properties props = new Properties();
        try (Reader in = Files.newBufferedReader(fixture.resolve("fixture.properties"))) {
            props.load(in);
        }
        return props;
    }

    private static String expected(Path fixture, String name) throws IOException {
        return Files.readString(fixture.resolve(name), StandardCharsets.UTF_8);
    }

    /** The snapshot files (and their MD5 files) under a data dir. */
    private static List<Path> snapshotFiles(Path data) throws IOException {
        try (Stream<Path> files = Files.walk(data)) {
            return files.filter(p -> p.getFileName().toString().startsWith("snapshot.")).sorted().toList();
        }
    }

    private static Path copy(Path from, Path to) throws IOException {
        try (Stream<Path> files = Files.walk(from)) {
            for (Path p : files.toList()) {
                Path target = to.resolve(from.relativize(p).toString());
                if (Files.isDirectory(p)) {
                    Files.createDirectories(target);
                } else if (!p.getFileName().toString().equals("in_use.lock")) {
                    Files.copy(p, target, StandardCopyOption.REPLACE_EXISTING);
                }
            }
        }
        return to;
    }
}

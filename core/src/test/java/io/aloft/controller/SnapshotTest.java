package io.aloft.controller;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.aloft.controller.client.ControllerClient;
import io.aloft.controller.client.ControllerStreamMetadata;
import io.aloft.controller.command.PutKv;
import io.aloft.stream.metadata.CommitStreamSetObjectRequest;
import io.aloft.stream.metadata.CreateStreamRequest;
import io.aloft.stream.metadata.OpenStreamRequest;
import io.aloft.stream.metadata.PrepareObjectsRequest;
import io.aloft.stream.metadata.StreamMetadataState;
import io.aloft.stream.metadata.StreamObjectSpec;
import io.aloft.stream.metadata.StreamRange;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Snapshots on a real quorum with {@code controller.snapshot.interval.entries} = {@value #SNAPSHOT_INTERVAL}:
 * automatic snapshots purge the log; a follower that was down while the others snapshotted and
 * purged past its log catches up by snapshot install (the state machine's pause/reinitialize path)
 * and ends identical; a restarted quorum loads its snapshots and ends identical.
 *
 * <p>The state holds {@code -Daloft.controller.snapshot.objects} committed objects (default
 * {@value #DEFAULT_OBJECTS}), committed in about {@value #COMMITS} commands of many stream objects
 * each, as a broker's upload commits them. The cost is in the number of log entries, not objects:
 * 50,000 objects took as long as 200,000 here.
 */
class SnapshotTest {
    static final int DEFAULT_OBJECTS = 200_000;
    private static final int OBJECTS = Integer.getInteger("aloft.controller.snapshot.objects", DEFAULT_OBJECTS);
    /**
     * Commit commands. With the other entries, enough for three snapshots (with margin: a snapshot
     * can land a few entries past its interval), the third at least Ratis's purge gap (1024
     * entries) past the start, which a purge needs.
     */
    private static final int COMMITS = 1_250;
    /** Streams, each committed to by its own chain of commands, the chains in flight at once. */
    private static final int STREAMS = 8;
    private static final long SNAPSHOT_INTERVAL = 400;
    /**
     * Ratis purges only closed log segments, and closes one at 8 MB (or at a new term). Commits
     * are compact (tens of bytes an object), so the test also writes this many 128 KB kv values
     * (overwriting one key: the state stays small) to close a segment within seconds.
     */
    private static final int FILLERS = 80;

    private static final Pattern SEGMENT = Pattern.compile("log_(?:inprogress_)?(\\d+)(?:-\\d+)?");
    private static final Pattern SNAPSHOT = Pattern.compile("snapshot\\.(\\d+)_(\\d+)");

    @TempDir
    Path dir;

    @Test
    void followerBehindPurgedLogCatchesUpBySnapshot_andQuorumRestartsFromSnapshots() throws Exception {
        String before;
        long applied;
        // As many Raft connections as chains in flight, so the client never batches commands: the
        // test needs one log entry per command to reach several snapshots.
        try (TestQuorum q = new TestQuorum(dir, 3, b -> b.snapshotIntervalEntries(SNAPSHOT_INTERVAL)
                .clientConnections(STREAMS));
                ControllerClient client = q.newClient()) {
            int leader = q.awaitLeader();
            int follower = leader == 3 ? 2 : 3;
            ControllerStreamMetadata metadata = new ControllerStreamMetadata(client);
            List<CompletableFuture<Long>> created = new ArrayList<>();
            for (int i = 0; i < STREAMS; i++) {
                created.add(metadata.createStream(new CreateStreamRequest(1))
                        .thenCompose(id -> metadata.openStream(new OpenStreamRequest(id, 1, 1)).thenApply(s -> id)));
            }
            List<Long> streams = new ArrayList<>();
            for (CompletableFuture<Long> f : created) {
                streams.add(f.get(60, TimeUnit.SECONDS));
            }
            q.awaitApplied(q.maxApplied());
            // Nothing is being written now, so the follower stops with exactly this much applied.
            long followerApplied = q.server(follower).lastAppliedIndex();
            q.stop(follower);

            long t0 = System.nanoTime();
            byte[] filler = new byte[128 * 1024];
            for (int i = 0; i < FILLERS; i++) {
                filler[0] = (byte) i;
                client.submit(new PutKv("filler", filler)).get(60, TimeUnit.SECONDS);
            }
            commitObjects(metadata, streams, OBJECTS);
            log("committed " + OBJECTS + " objects", t0);
            q.awaitApplied(q.maxApplied());

            int current = q.awaitLeader();
            Path leaderDir = q.config(current).dataDir();
            List<Long> snapshots = snapshotIndexes(leaderDir);
            assertFalse(snapshots.isEmpty(), "the leader snapshotted: " + listing(leaderDir));
            // Ratis indexes from 0 and snapshots once an interval of entries is applied: the third
            // snapshot can be at index 3 * interval - 1 exactly (CI saw 399, 799, 1199).
            assertTrue(Collections.max(snapshots) >= 3 * SNAPSHOT_INTERVAL - 1, "several snapshots were taken "
                    + "(the latest two are kept): " + listing(leaderDir));
            long leaderFirst = firstLogIndex(leaderDir);
            assertTrue(leaderFirst > followerApplied + 1, "the leader purged its log past the stopped follower's "
                    + "index " + followerApplied + ": " + listing(leaderDir));

            long t1 = System.nanoTime();
            q.start(follower);
            applied = q.maxApplied();
            q.awaitApplied(applied);
            log("follower caught up", t1);
            Path followerDir = q.config(follower).dataDir();
            // It cannot have replayed entries the leader no longer has: it holds an installed snapshot.
            assertTrue(snapshotIndexes(followerDir).stream().anyMatch(i -> i >= leaderFirst),
                    "the follower holds a snapshot from after the leader's purge point " + leaderFirst + ": "
                            + listing(followerDir));
            before = q.server(current).state().dump();
            for (int id = 1; id <= 3; id++) {
                if (id != current) {
                    assertEquals(before, q.server(id).state().dump(), "voter " + id);
                }
            }
            assertEquals(OBJECTS, before.lines().filter(l -> l.startsWith("object ")).count(), "objects in the state");
        }
        long t2 = System.nanoTime();
        try (TestQuorum q = new TestQuorum(dir, 3, b -> b.snapshotIntervalEntries(SNAPSHOT_INTERVAL))) {
            q.awaitLeader();
            q.awaitApplied(applied);
            log("quorum restarted", t2);
            for (int id = 1; id <= 3; id++) {
                assertEquals(before, q.server(id).state().dump(), "voter " + id + " after the quorum restarted");
            }
        }
    }

    /** Progress for the record (never asserted): what the object count costs on this machine. */
    private static void log(String what, long sinceNanos) {
        System.out.println("SnapshotTest: " + what + " in " + (System.nanoTime() - sinceNanos) / 1_000_000 + " ms");
    }

    /**
     * Prepares and commits {@code count} stream objects in about {@link #COMMITS} commands, spread
     * over the streams; each stream's commands go one after another (each continues where the last
     * ended), the streams' in parallel.
     */
    private static void commitObjects(ControllerStreamMetadata metadata, List<Long> streams, int count)
            throws Exception {
        List<Long> ids = new ArrayList<>(count);
        for (int prepared = 0; prepared < count; ) {
            int n = Math.min(StreamMetadataState.MAX_PREPARE_COUNT, count - prepared);
            long first = metadata.prepareObjects(new PrepareObjectsRequest(1, n, 3_600_000,
                    System.currentTimeMillis())).get(60, TimeUnit.SECONDS);
            for (int i = 0; i < n; i++) {
                ids.add(first + i);
            }
            prepared += n;
        }
        List<CompletableFuture<Void>> chains = new ArrayList<>();
        for (int s = 0; s < streams.size(); s++) {
            chains.add(CompletableFuture.completedFuture(null));
        }
        long[] ends = new long[streams.size()];
        int perCommit = Math.max(1, count / COMMITS);
        for (int batch = 0; batch * perCommit < count; batch++) {
            int s = batch % streams.size();
            List<StreamObjectSpec> specs = new ArrayList<>();
            for (int i = batch * perCommit; i < Math.min(count, (batch + 1) * perCommit); i++) {
                specs.add(new StreamObjectSpec(ids.get(i), 4096, new StreamRange(streams.get(s), 1, ends[s],
                        ends[s] + 10)));
                ends[s] += 10;
            }
            CommitStreamSetObjectRequest commit = new CommitStreamSetObjectRequest(1, -1, 0, List.of(), specs,
                    List.of(), System.currentTimeMillis());
            chains.set(s, chains.get(s).thenCompose(v -> metadata.commitStreamSetObject(commit)));
        }
        CompletableFuture.allOf(chains.toArray(CompletableFuture[]::new)).get(300, TimeUnit.SECONDS);
    }

    // ---- the Ratis storage layout: <dataDir>/<group id>/current/log_* and sm/snapshot.<term>_<index> ----

    private static List<Path> files(Path dataDir) throws IOException {
        try (Stream<Path> s = Files.walk(dataDir)) {
            return s.filter(Files::isRegularFile).toList();
        }
    }

    private static String listing(Path dataDir) throws IOException {
        return files(dataDir).stream().map(p -> dataDir.relativize(p) + "(" + p.toFile().length() + ")").toList()
                .toString();
    }

    /** The first index of the oldest log segment still on disk. */
    private static long firstLogIndex(Path dataDir) throws IOException {
        long first = Long.MAX_VALUE;
        for (Path p : files(dataDir)) {
            Matcher m = SEGMENT.matcher(p.getFileName().toString());
            if (m.matches()) {
                first = Math.min(first, Long.parseLong(m.group(1)));
            }
        }
        assertFalse(first == Long.MAX_VALUE, "log segments in " + dataDir);
        return first;
    }

    private static List<Long> snapshotIndexes(Path dataDir) throws IOException {
        List<Long> out = new ArrayList<>();
        for (Path p : files(dataDir)) {
            Matcher m = SNAPSHOT.matcher(p.getFileName().toString());
            if (m.matches()) {
                out.add(Long.parseLong(m.group(2)));
            }
        }
        return out;
    }
}

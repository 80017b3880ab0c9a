package io.aloft.controller;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.aloft.controller.client.ControllerClient;
import io.aloft.controller.client.ControllerStreamMetadata;
import io.aloft.stream.metadata.CommitStreamSetObjectRequest;
import io.aloft.stream.metadata.CreateStreamRequest;
import io.aloft.stream.metadata.OpenStreamRequest;
import io.aloft.stream.metadata.PrepareObjectsRequest;
import io.aloft.stream.metadata.StreamInfo;
import io.aloft.stream.metadata.StreamRange;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ControllerSmokeTest {
    @TempDir
    Path dir;

    @Test
    void oneVoterCommitsAndRestarts() throws Exception {
        String before;
        try (TestQuorum q = new TestQuorum(dir, 1); ControllerClient client = q.newClient()) {
            q.awaitLeader();
            ControllerStreamMetadata m = new ControllerStreamMetadata(client);
            long stream = m.createStream(new CreateStreamRequest(1)).get();
            StreamInfo opened = m.openStream(new OpenStreamRequest(stream, 1, 1)).get();
            long next = 0;
            for (int i = 0; i < 50; i++) {
                long id = m.prepareObjects(new PrepareObjectsRequest(1, 1, 60_000, 1000 + i)).get();
                m.commitStreamSetObject(new CommitStreamSetObjectRequest(1, id, 100, List.of(new StreamRange(stream,
                        opened.epoch(), next, next + 10)), List.of(), List.of(), 1000 + i)).get();
                next += 10;
            }
            assertEquals(500, m.describeStream(stream).get().endOffset());
            assertEquals(50, m.getObjects(stream, 0, -1, 1000).get().size());
            before = q.server(1).state().dump();
        }
        assertTrue(before.contains("stream 0"));
        try (TestQuorum q = new TestQuorum(dir, 1)) {
            q.awaitLeader();
            q.awaitApplied(1);
            assertEquals(before, q.server(1).state().dump());
        }
    }

    @Test
    void concurrentCommandsAreBatchedAndEachAnswered() throws Exception {
        try (TestQuorum q = new TestQuorum(dir, 1); ControllerClient client = q.newClient()) {
            q.awaitLeader();
            ControllerStreamMetadata m = new ControllerStreamMetadata(client);
            java.util.List<java.util.concurrent.CompletableFuture<Long>> futures = new java.util.ArrayList<>();
            for (int i = 0; i < 2000; i++) {
                futures.add(m.createStream(new CreateStreamRequest(1)));
            }
            java.util.Set<Long> ids = new java.util.HashSet<>();
            for (var f : futures) {
                ids.add(f.get(60, java.util.concurrent.TimeUnit.SECONDS));
            }
            assertEquals(2000, ids.size(), "every command applied once, each with its own reply");
            // Fewer log entries than commands: they were batched.
            assertTrue(q.server(1).lastAppliedIndex() < 2000, "applied index " + q.server(1).lastAppliedIndex());
        }
    }
}
